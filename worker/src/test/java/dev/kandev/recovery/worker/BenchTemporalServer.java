package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Temporal CLI dev server for a benchmark, with the flags {@code kandev-recovery dev} uses
 * (SQLite file, our search attributes) plus any a lever needs (dynamic config, in-memory store).
 * {@code DevTemporalServer} takes no extra flags, and a benchmark must not change main code for one.
 */
final class BenchTemporalServer implements AutoCloseable {
  private final Process process;
  private final int port;

  private BenchTemporalServer(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** @param databaseFile the SQLite file as {@code dev} uses, or null for the CLI's in-memory store */
  static BenchTemporalServer start(Path stateDir, Path databaseFile, List<String> extraFlags) {
    int port = RealTemporalServer.freePort();
    List<String> command = new ArrayList<>(List.of(RealTemporalServer.cli().toString(), "server", "start-dev",
        "--ip", "127.0.0.1", "--port", Integer.toString(port), "--headless", "--log-level", "warn"));
    if (databaseFile != null) {
      command.addAll(List.of("--db-filename", databaseFile.toString()));
    }
    RecoverySearchAttributes.ALL.forEach(key -> command.addAll(List.of("--search-attribute", key.getName() + "=Keyword")));
    command.addAll(extraFlags);
    try {
      Files.createDirectories(stateDir);
      Process process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(stateDir.resolve("temporal-server.log").toFile()).start();
      BenchTemporalServer server = new BenchTemporalServer(process, port);
      Await.until(() -> !process.isAlive() || server.answers(), Duration.ofSeconds(60), "the dev server on port " + port);
      if (!process.isAlive()) {
        throw new IllegalStateException("the dev server exited (" + process.exitValue() + "): see " + stateDir);
      }
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String address() {
    return "127.0.0.1:" + port;
  }

  private boolean answers() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
