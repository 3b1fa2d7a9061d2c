package dev.kandev.recovery.worker.harness;

import dev.kandev.recovery.activities.process.ProcessTrees;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.dev.TemporalCli;
import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A real Temporal server for a test: the Temporal CLI's dev server on free loopback ports, its
 * state in the test's folder. {@link #start} runs it exactly as {@code kandev-recovery dev} does
 * (through the main code's {@link DevTemporalServer}); {@link #startWith} runs it with flags
 * {@code dev} does not use (a benchmark's levers: dynamic config, pragmas, an in-memory store).
 * DevTemporalServer takes no extra flags on purpose: it is {@code dev}'s own starter (it adopts a
 * server a killed {@code dev} left on the same file, runs it in a session of its own, and reports
 * problems in the user's words), and a flags parameter only benchmarks use would be main code for
 * tests.
 */
public final class RealTemporalServer {
  private RealTemporalServer() {}

  public static DevTemporalServer start(Path stateDir) {
    return DevTemporalServer.start(cli(), stateDir, freePort(), freePort());
  }

  /**
   * A headless dev server with the search attributes {@code dev} registers plus {@code flags}; its
   * output goes to {@code temporal-server.log} in {@code stateDir}.
   *
   * @param databaseFile the SQLite file as {@code dev} uses, or null for the CLI's in-memory store
   */
  public static Flagged startWith(Path stateDir, Path databaseFile, List<String> flags) {
    return start(stateDir, databaseFile, freePort(), true, flags);
  }

  /**
   * A headless dev server on {@code port} without any custom search attribute, as a bare server or
   * a new Temporal Cloud namespace is; in memory, its output in {@code stateDir}.
   */
  public static Flagged startBare(Path stateDir, int port) {
    return start(stateDir, null, port, false, List.of());
  }

  private static Flagged start(Path stateDir, Path databaseFile, int port, boolean searchAttributes, List<String> flags) {
    List<String> command = new ArrayList<>(List.of(cli().toString(), "server", "start-dev",
        "--ip", "127.0.0.1", "--port", Integer.toString(port), "--headless", "--log-level", "warn"));
    if (databaseFile != null) {
      command.addAll(List.of("--db-filename", databaseFile.toString()));
    }
    if (searchAttributes) {
      RecoverySearchAttributes.ALL.forEach(key -> command.addAll(List.of("--search-attribute", key.getName() + "=Keyword")));
    }
    command.addAll(flags);
    try {
      Files.createDirectories(stateDir);
      Process process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(stateDir.resolve("temporal-server.log").toFile()).start();
      Flagged server = new Flagged(process, port);
      Await.until(() -> !process.isAlive() || answers(port), Duration.ofSeconds(60), "the dev server on port " + port);
      if (!process.isAlive()) {
        throw new IllegalStateException("the dev server exited (" + process.exitValue() + "): see " + stateDir);
      }
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A server {@link #startWith} started. */
  public static final class Flagged implements AutoCloseable {
    private final Process process;
    private final int port;

    private Flagged(Process process, int port) {
      this.process = process;
      this.port = port;
    }

    public String address() {
      return "127.0.0.1:" + port;
    }

    /** The server's process (a benchmark reads its CPU). */
    public ProcessHandle process() {
      return process.toHandle();
    }

    @Override
    public void close() throws InterruptedException {
      ProcessTrees.terminate(process);
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  /** The CLI `dev` would use; a machine without one fails the test with the command that installs it. */
  public static Path cli() {
    return TemporalCli.find(
            Optional.ofNullable(System.getenv("KANDEV_TEMPORAL_CLI")).filter(s -> !s.isBlank()).map(Path::of),
            System.getenv("PATH"))
        .orElseThrow(() -> new AssertionError("this test needs a real Temporal server and found no Temporal CLI: run"
            + " scripts/setup (it installs the CLI into .tools/temporal/bin/temporal), or set KANDEV_TEMPORAL_CLI"));
  }

  public static int freePort() {
    // Below the kernel's ephemeral range (32768 and up here): a port the kernel handed out for
    // probing is the next one any outgoing connection may take before the server binds it.
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(10_000, 20_000);
      try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return port;
      } catch (IOException taken) {
        // try another
      }
    }
    throw new IllegalStateException("found no free port between 10000 and 20000");
  }

  private static boolean answers(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
