package dev.kandev.recovery.worker.dev;

import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real Temporal server for {@code dev}: {@code temporal server start-dev} with its SQLite file in
 * the state folder, so workflow histories survive a restart, and the Web UI. It runs in a process
 * session of its own (a Ctrl-C in the terminal reaches only {@code dev}, which stops it last).
 *
 * <p>Never two servers on one database file: a server a killed {@code dev} left running on the same
 * file is found by its command line and reused when it serves the requested ports, else stopped.
 */
public final class DevTemporalServer implements AutoCloseable {
  private static final Duration READY_WITHIN = Duration.ofSeconds(60);
  private static final Duration STOP_WITHIN = Duration.ofSeconds(20);
  /** How often its history shard may read new transfer tasks; the same in deploy/temporal/dynamicconfig. */
  public static final int TRANSFER_READS_PER_SECOND = 1000;
  static final String DATABASE_FILE = "temporal.db";
  static final String LOG_FILE = "temporal-server.log";
  static final long LOG_ROTATE_BYTES = 16L * 1024 * 1024;

  private final ProcessHandle process;
  private final int port;
  private final int uiPort;
  private final boolean reused;
  private final Path log;

  private DevTemporalServer(ProcessHandle process, int port, int uiPort, boolean reused, Path log) {
    this.process = process;
    this.port = port;
    this.uiPort = uiPort;
    this.reused = reused;
    this.log = log;
  }

  /** Starts (or reuses) the server; a taken port or a server that dies is one clear {@link DevServerException}. */
  public static DevTemporalServer start(Path cli, Path stateDir, int port, int uiPort) {
    Path database = stateDir.toAbsolutePath().resolve(DATABASE_FILE);
    Path log = stateDir.toAbsolutePath().resolve(LOG_FILE);
    try {
      Files.createDirectories(stateDir);
    } catch (IOException e) {
      throw new DevServerException("cannot create the state folder " + stateDir + ": " + e.getMessage());
    }
    Optional<ProcessHandle> leftOver = serverOn(database);
    if (leftOver.isPresent()) {
      ProcessHandle old = leftOver.get();
      if (servesPorts(old, port, uiPort) && answers(port, Duration.ofSeconds(5))) {
        return new DevTemporalServer(old, port, uiPort, true, log);
      }
      stop(old);
    }
    requireFree(port, "Temporal frontend (gRPC)", "--temporal-port");
    requireFree(uiPort, "Temporal Web UI", "--ui-port");
    Process child = spawn(cli, database, log, port, uiPort);
    DevTemporalServer server = new DevTemporalServer(child.toHandle(), port, uiPort, false, log);
    server.awaitReady(child);
    return server;
  }

  public String address() {
    return "127.0.0.1:" + port;
  }

  public String webUi() {
    return "http://127.0.0.1:" + uiPort;
  }

  public long pid() {
    return process.pid();
  }

  /** True when a server a previous {@code dev} left running was taken over. */
  public boolean reused() {
    return reused;
  }

  public Path log() {
    return log;
  }

  /** Stops the server; its database file keeps every history for the next start. */
  @Override
  public void close() {
    stop(process);
  }

  private static Process spawn(Path cli, Path database, Path log, int port, int uiPort) {
    List<String> command = new ArrayList<>();
    if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
      command.add("/usr/bin/setsid"); // a session of its own: the terminal's Ctrl-C does not reach it
    }
    command.addAll(List.of(cli.toString(), "server", "start-dev",
        "--ip", "127.0.0.1", "--port", Integer.toString(port), "--ui-port", Integer.toString(uiPort),
        "--db-filename", database.toString(), "--ui-disable-news-fetch", "--log-level", "warn",
        // Write-ahead log: a resume's many small history writes no longer each wait for a full sync
        // (docs/benchmarks.md, "Orchestration overhead"); still durable when a process is killed.
        "--sqlite-pragma", "journal_mode=wal", "--sqlite-pragma", "synchronous=normal",
        // The history shard reads its new transfer tasks (a workflow or activity task to dispatch) at
        // most 20 times a second by default: a resume's three dispatches waited up to 50 ms each.
        "--dynamic-config-value", "history.transferProcessorMaxPollRPS=" + TRANSFER_READS_PER_SECOND));
    RecoverySearchAttributes.ALL.forEach(key -> command.addAll(List.of("--search-attribute", key.getName() + "=Keyword")));
    try {
      rotateIfLarge(log);
      Files.writeString(log, "--- " + Instant.now() + " " + String.join(" ", command) + System.lineSeparator(),
          StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      return new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
          .start();
    } catch (IOException e) {
      throw new DevServerException("cannot start the Temporal CLI " + cli + ": " + e.getMessage());
    }
  }

  /** Waits for the server to answer; stops it (it runs in a session of its own) if it does not. */
  private void awaitReady(Process child) {
    try {
      Instant deadline = Instant.now().plus(READY_WITHIN);
      while (Instant.now().isBefore(deadline)) {
        if (!child.isAlive()) {
          throw new DevServerException("the Temporal dev server exited with code " + child.exitValue()
              + " before it answered: " + lastLine(log) + " (log: " + log + ")");
        }
        if (answers(port, Duration.ofSeconds(2))) {
          return;
        }
        sleep(Duration.ofMillis(200));
      }
      throw new DevServerException("the Temporal dev server did not answer on " + address() + " within "
          + READY_WITHIN.toSeconds() + " s (log: " + log + ")");
    } catch (DevServerException e) {
      stop(process);
      throw e;
    }
  }

  /** The temporal process serving {@code database}, if one runs (a killed dev leaves it behind). */
  static Optional<ProcessHandle> serverOn(Path database) {
    String file = database.toString();
    return ProcessHandle.allProcesses()
        .filter(p -> p.info().arguments().map(args -> isDevServerOn(args, file)).orElse(false))
        .findFirst();
  }

  private static boolean isDevServerOn(String[] args, String file) {
    List<String> list = Arrays.asList(args);
    int db = list.indexOf("--db-filename");
    return list.contains("start-dev") && db >= 0 && db + 1 < list.size() && list.get(db + 1).equals(file);
  }

  private static boolean servesPorts(ProcessHandle server, int port, int uiPort) {
    List<String> args = server.info().arguments().map(Arrays::asList).orElse(List.of());
    return flag(args, "--port").equals(Optional.of(Integer.toString(port)))
        && flag(args, "--ui-port").equals(Optional.of(Integer.toString(uiPort)));
  }

  private static Optional<String> flag(List<String> args, String name) {
    int at = args.indexOf(name);
    return at >= 0 && at + 1 < args.size() ? Optional.of(args.get(at + 1)) : Optional.empty();
  }

  static boolean answers(int port, Duration within) {
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:" + port).build());
    try {
      stubs.blockingStub().withDeadlineAfter(within.toMillis(), TimeUnit.MILLISECONDS)
          .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
      return true;
    } catch (RuntimeException e) {
      return false;
    } finally {
      stubs.shutdownNow();
    }
  }

  /** SIGTERM, then SIGKILL; returns once the process is gone (SQLite is free again). */
  private static void stop(ProcessHandle server) {
    if (!server.isAlive()) {
      return;
    }
    server.destroy();
    try {
      server.onExit().get(STOP_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      server.destroyForcibly();
      server.onExit().join();
    }
  }

  private static void requireFree(int port, String what, String option) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
    } catch (IOException e) {
      throw new DevServerException("port " + port + " for the " + what + " is taken by another process: stop it, choose"
          + " another port (dev " + option + " N), or use a server that already runs there (dev --temporal-address 127.0.0.1:"
          + port + ")");
    }
  }

  private static String lastLine(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      for (int i = lines.size() - 1; i >= 0; i--) {
        if (!lines.get(i).isBlank()) {
          return lines.get(i).trim();
        }
      }
      return "(no output)";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Each start appends to the log: once it passed {@link #LOG_ROTATE_BYTES} it becomes {@code
   * temporal-server.log.1} (replacing the one before) and a new log begins, so the state folder does
   * not grow without bound.
   */
  static void rotateIfLarge(Path log) throws IOException {
    if (Files.exists(log) && Files.size(log) > LOG_ROTATE_BYTES) {
      Files.move(log, log.resolveSibling(log.getFileName() + ".1"), StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DevServerException("interrupted while waiting for the Temporal dev server");
    }
  }
}
