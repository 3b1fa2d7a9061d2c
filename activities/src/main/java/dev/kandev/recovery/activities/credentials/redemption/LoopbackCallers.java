package dev.kandev.recovery.activities.credentials.redemption;

import dev.kandev.recovery.activities.credentials.broker.CallerCheck;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * Tells which process is on the other end of a loopback TCP connection to the endpoint, on Linux:
 * the client's socket is the row of {@code /proc/net/tcp} (or {@code tcp6}) whose local port is the
 * caller's port and whose remote port is the endpoint's, which names the socket's inode; the caller
 * is whichever process holds {@code socket:[inode]} among its {@code /proc/<pid>/fd}. Only the
 * agent's tree is searched, so a caller is accepted only if the agent or one of its descendants
 * holds the connection while the endpoint answers it (curl waits for the answer with it open).
 */
final class LoopbackCallers {
  private static final String ESTABLISHED = "01";

  private final Path proc;
  private final AgentProcesses agents;

  LoopbackCallers(Path proc, AgentProcesses agents) {
    this.proc = proc;
    this.agents = agents;
  }

  /** Whether this machine shows sockets and file descriptors as Linux does. */
  static boolean available(Path proc) {
    return Files.isReadable(proc.resolve("net/tcp")) && Files.isDirectory(proc.resolve("self/fd"));
  }

  /** The check for one request: the caller at {@code peer}, connected to our {@code serverPort}. */
  CallerCheck of(InetSocketAddress peer, int serverPort) {
    return sessionId -> {
      if (!peer.getAddress().isLoopbackAddress()) {
        return false;
      }
      OptionalLong inode = socketInode(peer.getPort(), serverPort);
      return inode.isPresent() && agents.of(sessionId).filter(ProcessHandle::isAlive)
          .map(root -> heldInTree(root, "socket:[" + inode.getAsLong() + "]"))
          .orElse(false);
    };
  }

  private OptionalLong socketInode(int clientPort, int serverPort) {
    for (String table : List.of("net/tcp", "net/tcp6")) {
      try (Stream<String> lines = Files.lines(proc.resolve(table))) {
        OptionalLong inode = lines.skip(1)
            .map(line -> line.trim().split("\\s+"))
            .filter(f -> f.length > 9 && ESTABLISHED.equals(f[3]) && port(f[1]) == clientPort && port(f[2]) == serverPort)
            .mapToLong(f -> Long.parseLong(f[9]))
            .filter(n -> n != 0)
            .findFirst();
        if (inode.isPresent()) {
          return inode;
        }
      } catch (IOException | RuntimeException e) {
        // no such table (no IPv6) or a row that is not what we expect: look in the next one
      }
    }
    return OptionalLong.empty();
  }

  /** {@code 0100007F:A1B2} → 0xA1B2. */
  private static int port(String address) {
    return Integer.parseInt(address.substring(address.indexOf(':') + 1).toLowerCase(Locale.ROOT), 16);
  }

  private boolean heldInTree(ProcessHandle root, String socket) {
    return Stream.concat(Stream.of(root), root.descendants()).anyMatch(p -> holds(p.pid(), socket));
  }

  private boolean holds(long pid, String socket) {
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve(Long.toString(pid)).resolve("fd"))) {
      for (Path fd : fds) {
        try {
          if (socket.equals(Files.readSymbolicLink(fd).toString())) {
            return true;
          }
        } catch (IOException e) {
          // closed while we looked
        }
      }
    } catch (IOException e) {
      // the process ended, or is not ours to look at
    }
    return false;
  }
}
