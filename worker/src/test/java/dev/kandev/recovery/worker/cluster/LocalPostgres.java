package dev.kandev.recovery.worker.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import dev.kandev.recovery.activities.testing.TempFolders;
import dev.kandev.recovery.worker.harness.RealTemporalServer;

/**
 * A PostgreSQL instance of the test's own (Debian's server binaries, {@code initdb} into a folder,
 * {@code pg_ctl}), so a test can stop and start it while resumes run without touching the
 * PostgreSQL other tests use. Trusts {@code postgres} on loopback, like the one setup installs. As
 * root the server runs as the {@code postgres} user (PostgreSQL refuses to run as root).
 */
public final class LocalPostgres implements AutoCloseable {
  private static final Path BINARIES = binaries();
  private static final boolean ROOT = "root".equals(System.getProperty("user.name"));

  private final Path data;
  private final int port;
  private boolean running;

  private LocalPostgres(Path data, int port) {
    this.data = data;
    this.port = port;
  }

  /** Creates an instance in a temporary folder of its own and starts it. */
  public static LocalPostgres start() {
    try {
      Path dir = Files.createTempDirectory("kandev-postgres-"); // private (700): the server's user must enter it
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
      Path data = dir.resolve("data");
      Files.createDirectories(data);
      LocalPostgres postgres = new LocalPostgres(data, RealTemporalServer.freePort());
      if (ROOT) {
        postgres.run(Duration.ofSeconds(30), "chown", "-R", "postgres:postgres", dir.toString());
      }
      postgres.pg(Duration.ofMinutes(1), "initdb", "-D", data.toString(), "-U", "postgres", "--auth=trust",
          "--no-sync", "-E", "UTF8", "--locale=C.UTF-8");
      postgres.startServer();
      return postgres;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code host:port}, as {@code scripts/cluster} takes it ({@code KANDEV_CLUSTER_PG}). */
  public String hostPort() {
    return "127.0.0.1:" + port;
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://" + hostPort() + "/postgres";
  }

  /** Connections as {@code postgres} to its database {@code postgres}, each opened when asked for. */
  public DataSource dataSource() {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setUrl(jdbcUrl());
    dataSource.setUser("postgres");
    return dataSource;
  }

  /** Stops the server as an operator's restart does (fast: active sessions are disconnected). */
  public void stop() {
    pg(Duration.ofMinutes(1), "pg_ctl", "stop", "-D", data.toString(), "-m", "fast", "-w");
    running = false;
  }

  /**
   * {@code pg_ctl restart -m <mode>}: {@code fast} (sessions disconnected, a clean shutdown) or
   * {@code immediate} (no shutdown checkpoint: crash recovery at the start). Returns once it accepts
   * connections again.
   */
  public void restart(String mode) {
    if (!mode.equals("fast") && !mode.equals("immediate")) {
      throw new IllegalArgumentException("restart mode " + mode + ": fast or immediate");
    }
    pg(Duration.ofMinutes(1), "pg_ctl", "stop", "-D", data.toString(), "-m", mode, "-w");
    running = false;
    startServer();
  }

  /** Starts the server and returns once it accepts connections. */
  public void startServer() {
    pg(Duration.ofMinutes(1), "pg_ctl", "start", "-D", data.toString(), "-w", "-t", "50",
        "-l", data.resolveSibling("postgres.log").toString(),
        "-o", "-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + data
            + " -c max_connections=300");
    running = true;
  }

  /** Stops the server at once and deletes its folder. */
  @Override
  public void close() throws IOException {
    try {
      if (running) {
        pg(Duration.ofMinutes(1), "pg_ctl", "stop", "-D", data.toString(), "-m", "immediate", "-w");
      }
    } finally {
      TempFolders.delete(data.getParent());
    }
  }

  private void pg(Duration within, String binary, String... args) {
    List<String> command = new ArrayList<>();
    if (ROOT) {
      command.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    command.add(BINARIES.resolve(binary).toString());
    command.addAll(List.of(args));
    run(within, command.toArray(String[]::new));
  }

  private void run(Duration within, String... command) {
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      process.getOutputStream().close();
      byte[] output = process.getInputStream().readAllBytes(); // pg_ctl -w leaves no child on our pipe
      if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " did not end within " + within);
      }
      if (process.exitValue() != 0) {
        throw new AssertionError(String.join(" ", command) + " exited " + process.exitValue() + ":\n"
            + new String(output, StandardCharsets.UTF_8) + log());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private String log() {
    try {
      Path log = data.resolveSibling("postgres.log");
      return Files.exists(log) ? "\npostgres.log:\n" + Files.readString(log) : "";
    } catch (IOException e) {
      return "";
    }
  }

  /** Debian's server binaries, the newest version installed ({@code /usr/lib/postgresql/<version>/bin}). */
  private static Path binaries() {
    try (var versions = Files.list(Path.of("/usr/lib/postgresql"))) {
      return versions.map(v -> v.resolve("bin")).filter(bin -> Files.isExecutable(bin.resolve("pg_ctl")))
          .max((a, b) -> Integer.compare(major(a), major(b)))
          .orElseThrow(() -> new AssertionError("no PostgreSQL server binaries in /usr/lib/postgresql: run scripts/setup"));
    } catch (IOException e) {
      throw new AssertionError("no PostgreSQL server binaries in /usr/lib/postgresql: run scripts/setup", e);
    }
  }

  private static int major(Path bin) {
    String version = bin.getParent().getFileName().toString();
    return version.matches("\\d+") ? Integer.parseInt(version) : 0;
  }

}
