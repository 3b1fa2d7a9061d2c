package dev.kandev.recovery.worker.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The sockets a process and its descendants listen on, as Linux says: each process's socket inodes
 * ({@code /proc/<pid>/fd}) matched against the kernel's tables ({@code /proc/net/tcp}, {@code tcp6}:
 * state LISTEN; {@code udp}, {@code udp6}: every bound socket). Read at one moment: call it once the
 * processes are up.
 */
public final class ListeningSockets {
  private static final String TCP_LISTEN = "0A";

  private ListeningSockets() {}

  /** A socket bound to {@code address}:{@code port} ({@code protocol}: tcp, tcp6, udp, udp6) by process {@code pid}. */
  public record Socket(String protocol, InetAddress address, int port, long pid, String command) {
    public boolean loopback() {
      byte[] bytes = address.getAddress();
      // an IPv4-mapped IPv6 address of 127.0.0.0/8 is loopback too
      boolean mappedLoopback = bytes.length == 16 && bytes[10] == (byte) 0xff && bytes[11] == (byte) 0xff && bytes[12] == 127
          && Arrays.equals(bytes, 0, 10, new byte[10], 0, 10);
      return address.isLoopbackAddress() || mappedLoopback;
    }

    @Override
    public String toString() {
      return protocol + " " + address.getHostAddress() + ":" + port + " (pid " + pid + " " + command + ")";
    }
  }

  /** What {@code pid} and every descendant of it listen on. */
  public static List<Socket> ofTree(long pid) {
    ProcessHandle root = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no process " + pid));
    List<ProcessHandle> tree = new ArrayList<>(List.of(root));
    root.descendants().forEach(tree::add);
    List<Socket> sockets = new ArrayList<>();
    for (ProcessHandle process : tree) {
      Set<String> inodes = socketInodes(process.pid());
      String command = process.info().command().map(c -> Path.of(c).getFileName().toString()).orElse("?");
      for (String protocol : List.of("tcp", "tcp6", "udp", "udp6")) {
        for (String[] entry : table(protocol)) {
          boolean bound = protocol.startsWith("udp") || entry[3].equals(TCP_LISTEN);
          if (bound && inodes.contains(entry[9])) {
            String[] local = entry[1].split(":");
            sockets.add(new Socket(protocol, address(local[0]), Integer.parseInt(local[1], 16), process.pid(), command));
          }
        }
      }
    }
    return sockets;
  }

  /** The inodes of the process's open sockets ({@code socket:[inode]} links in its fd folder). */
  private static Set<String> socketInodes(long pid) {
    Set<String> inodes = new HashSet<>();
    try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      for (Path fd : fds.toList()) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            inodes.add(target.substring("socket:[".length(), target.length() - 1));
          }
        } catch (IOException closedMeanwhile) {
          // the descriptor was closed while we looked
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the descriptors of pid " + pid, e);
    }
    return inodes;
  }

  private static List<String[]> table(String protocol) {
    try {
      return Files.readAllLines(Path.of("/proc/net", protocol)).stream().skip(1)
          .map(line -> line.trim().split("\\s+")).toList();
    } catch (IOException e) {
      return List.of(); // no IPv6 on this machine
    }
  }

  /** The kernel's hex of an address: 32-bit words in host (little-endian) order. */
  private static InetAddress address(String hex) {
    byte[] bytes = new BigInteger("1" + hex, 16).toByteArray();
    byte[] raw = Arrays.copyOfRange(bytes, 1, bytes.length);
    for (int word = 0; word < raw.length; word += 4) {
      for (int i = 0; i < 2; i++) {
        byte b = raw[word + i];
        raw[word + i] = raw[word + 3 - i];
        raw[word + 3 - i] = b;
      }
    }
    try {
      return InetAddress.getByAddress(raw);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an address: " + hex, e);
    }
  }
}
