package dev.kandev.recovery.worker.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The production-shaped Temporal cluster of {@code scripts/cluster} — frontend ×2, history, matching
 * and worker as separate processes on PostgreSQL, 16 shards, nginx balancing the frontends — run
 * exactly as a user runs it, on ports and databases of its own, its folder in the test's. Its
 * address is the balancer's. Its folder is {@code dir}, its ports start at {@code port}, its
 * databases are named after {@code database} on {@code postgres}.
 */
public record LocalTemporalCluster(Path dir, int port, String database, LocalPostgres postgres) implements AutoCloseable {
  static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  static final Path SERVER = REPOSITORY.resolve(".tools/temporal-server/bin/temporal-server");
  static final List<String> SERVICES = List.of("frontend1", "frontend2", "history", "matching", "worker", "balancer", "ui");

  /**
   * Starts a cluster in {@code dir} with its databases on {@code postgres}; fails with the setup
   * command when there is no temporal-server (this test proves the product on that server: it never
   * skips).
   */
  public static LocalTemporalCluster start(Path dir, LocalPostgres postgres) {
    ClusterToolsBuild.awaitAny();
    if (!Files.isExecutable(SERVER)) {
      throw new AssertionError("this test runs kandev-recovery on a Temporal cluster and found no " + SERVER
          + ": run scripts/setup-cluster (it builds temporal-server and temporal-sql-tool into .tools/temporal-server;"
          + " needs Go)" + ClusterToolsBuild.logTail());
    }
    String database = "temporal_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    LocalTemporalCluster cluster = new LocalTemporalCluster(dir, freePortBlock(), database, postgres);
    try {
      cluster.script(Duration.ofMinutes(4), "start");
    } catch (AssertionError e) {
      try {
        cluster.close(); // what did start, and the databases
      } catch (AssertionError cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
    return cluster;
  }

  /** The balancer in front of the two frontends: the address every client of this cluster uses. */
  public String address() {
    return "127.0.0.1:" + port;
  }

  /** The address of one frontend ({@code frontend1}, {@code frontend2}) directly. */
  String frontendAddress(String frontend) {
    return "127.0.0.1:" + (port + SERVICES.indexOf(frontend) + 1);
  }

  /** The Web UI's address, pointed at the balancer. */
  String webUi() {
    return "http://127.0.0.1:" + (port + 80);
  }

  /** {@code kill -9} of one service, as a crashed host loses it. */
  String kill(String service) {
    return script(Duration.ofSeconds(30), "kill", service);
  }

  /** Stops one service as its service manager would (SIGTERM, its clean shutdown). */
  String stop(String service) {
    return script(Duration.ofSeconds(60), "stop", service);
  }

  /** Starts every service that is not running and waits until each serves (idempotent). */
  String startAll() {
    List<String> args = new ArrayList<>(List.of("start"));
    args.addAll(SERVICES);
    return script(Duration.ofMinutes(3), args.toArray(String[]::new));
  }

  /**
   * The processes of the services a call goes through: the balancer (nginx, whose workers are its
   * children) and the four Temporal services (both frontends), from the pid files of {@code
   * scripts/cluster}; a service that is not running is left out. Not the Web UI.
   */
  public List<ProcessHandle> serviceProcesses() {
    List<ProcessHandle> processes = new ArrayList<>();
    for (String service : SERVICES) {
      Path pidFile = dir.resolve("pids").resolve(service + ".pid");
      if (service.equals("ui") || !Files.exists(pidFile)) {
        continue;
      }
      try {
        ProcessHandle.of(Long.parseLong(Files.readString(pidFile).strip())).filter(ProcessHandle::isAlive)
            .ifPresent(processes::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return processes;
  }

  public String status() {
    return script(Duration.ofSeconds(30), "status");
  }

  Path logs() {
    return dir.resolve("logs");
  }

  /** Copies the services' logs to {@code target} (they go with the cluster's folder). */
  void keepLogs(Path target) {
    try (var files = Files.list(logs())) {
      Files.createDirectories(target);
      for (Path log : files.toList()) {
        Files.copy(log, target.resolve(log.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      System.err.println("could not keep the cluster's logs: " + e);
    }
  }

  /** Stops the cluster and drops its databases. */
  @Override
  public void close() {
    script(Duration.ofMinutes(2), "destroy");
  }

  private String script(Duration within, String... args) {
    List<String> command = new ArrayList<>(List.of(REPOSITORY.resolve("scripts/cluster").toString()));
    command.addAll(List.of(args));
    try {
      Files.createDirectories(dir);
      Path output = Files.createTempFile(dir.getParent(), "cluster-", ".out");
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
      builder.environment().putAll(Map.of(
          "KANDEV_CLUSTER_DIR", dir.toString(),
          "KANDEV_CLUSTER_PORT", Integer.toString(port),
          "KANDEV_CLUSTER_DB", database,
          "KANDEV_CLUSTER_PG", postgres.hostPort()));
      Process process = builder.start();
      boolean ended = process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS);
      String text = Files.readString(output, StandardCharsets.UTF_8);
      Files.deleteIfExists(output);
      if (!ended) {
        process.destroyForcibly();
        throw new AssertionError("scripts/cluster " + String.join(" ", args) + " did not end within " + within + ":\n" + text);
      }
      if (process.exitValue() != 0) {
        throw new AssertionError("scripts/cluster " + String.join(" ", args) + " exited " + process.exitValue() + ":\n" + text);
      }
      return text;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** A base port whose next 80 ports are free, at most 32767 all (membership ports are a smallint). */
  private static int freePortBlock() {
    for (int attempt = 0; attempt < 50; attempt++) {
      int base = ThreadLocalRandom.current().nextInt(20_000, 32_680);
      if (allFree(base, base + 80)) {
        return base;
      }
    }
    throw new IllegalStateException("found no 46 free ports between 20000 and 32767");
  }

  private static boolean allFree(int from, int to) {
    for (int port = from; port <= to; port++) {
      try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        socket.setReuseAddress(true);
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }
}
