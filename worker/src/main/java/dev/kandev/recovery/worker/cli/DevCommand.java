package dev.kandev.recovery.worker.cli;

import dev.kandev.recovery.activities.store.Database;
import dev.kandev.recovery.worker.StopSignal;
import dev.kandev.recovery.worker.WorkerProcess;
import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.dev.DevServerException;
import dev.kandev.recovery.worker.dev.DevSettings;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.dev.LoopbackTestServer;
import dev.kandev.recovery.worker.dev.TemporalCli;
import dev.kandev.recovery.worker.observability.Observability;
import dev.kandev.recovery.worker.recovery.Predecessor;
import dev.kandev.recovery.worker.temporal.SearchAttributeRegistrar;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Everything in one process for a developer: the real Temporal dev server (durable, with its Web
 * UI) as a child, migrations against the configured PostgreSQL, and the worker. Ctrl-C stops the
 * worker, its agents and then the server.
 */
@Command(
    name = "dev",
    mixinStandardHelpOptions = true,
    description = {
        "Run the worker with a real Temporal dev server (temporal server start-dev: SQLite in the state folder, Web UI)"
            + " and the configured PostgreSQL.",
        "Without a Temporal CLI it falls back to the SDK's in-memory test server (not durable, no Web UI).",
        "Environment: KANDEV_STATE_DIR, KANDEV_TEMPORAL_CLI, TEMPORAL_ADDRESS (use that server instead), and the"
            + " worker's variables (docs/configuration.md)."})
public final class DevCommand implements Callable<Integer> {
  @Option(names = "--temporal-port", description = "Port of the Temporal frontend (gRPC) dev starts. Default: 7233.")
  Integer temporalPort;

  @Option(names = "--ui-port", description = "Port of the Temporal Web UI. Default: the frontend port + 1000 (8233).")
  Integer uiPort;

  @Option(names = "--temporal-address", paramLabel = "HOST:PORT",
      description = "Use the Temporal server that runs there instead of starting one (also: TEMPORAL_ADDRESS).")
  String temporalAddress;

  @Override
  public Integer call() throws Exception {
    Settings settings = Settings.fromEnvironment();
    DevSettings dev = settings.dev();
    try (StopSignal stop = StopSignal.install();
        Temporal temporal = temporal(settings, dev);
        Database database = Database.open(settings.database()).migrate();
        Observability observability = Observability.create();
        TemporalConnection connection = TemporalConnection.open(temporal.address, settings.temporalNamespace(),
            settings.workerInstance(), observability.sdkScope())) {
      System.out.printf("PostgreSQL   %s (schema %s) migrated%n", settings.database().shownUrl(), database.schema());
      SearchAttributeRegistrar.register(connection.service, settings.temporalNamespace());
      System.out.printf("Temporal     %s (%s, namespace %s)%n", temporal.address, temporal.description, settings.temporalNamespace());
      temporal.webUi.ifPresent(ui -> System.out.printf("Web UI       %s%n", ui));
      System.out.printf("Worker       task queue %s, instance %s%n", settings.taskQueue(), settings.workerInstance());
      WorkerProcess.serve(settings, database, connection.client, stop, "dev", observability);
    } catch (DevServerException e) {
      System.err.println("dev: " + e.getMessage());
      return 1;
    }
    return 0;
  }

  /** The Temporal server dev works with: one that runs already, the CLI's dev server, or the in-memory fallback. */
  private Temporal temporal(Settings settings, DevSettings dev) {
    Predecessor.read(settings.pidFile("dev")).filter(Predecessor::isAlive).ifPresent(other -> {
      throw new DevServerException("another kandev-recovery (pid " + other.pid() + ", worker " + other.workerInstance()
          + ") runs dev with the state folder " + settings.stateDir() + ": stop it, or give this one another KANDEV_STATE_DIR");
    });
    Optional<String> existing = Optional.ofNullable(temporalAddress).or(dev::existingServer);
    if (existing.isPresent()) {
      return new Temporal(existing.get(), "an existing server", Optional.empty(), () -> {});
    }
    int port = temporalPort != null ? temporalPort : settings.temporalPort();
    int ui = uiPort != null ? uiPort : port + 1000;
    Optional<Path> cli = TemporalCli.find(dev.temporalCli(), dev.path());
    if (cli.isEmpty() && dev.temporalCli().isPresent()) {
      throw new DevServerException("KANDEV_TEMPORAL_CLI=" + dev.temporalCli().get() + " is not an executable file");
    }
    if (cli.isPresent()) {
      DevTemporalServer server = DevTemporalServer.start(cli.get(), settings.stateDir(), port, ui);
      String how = (server.reused() ? "reused the dev server a previous dev left running" : "Temporal dev server")
          + ", pid " + server.pid() + ", state " + settings.stateDir() + ", log " + server.log();
      return new Temporal(server.address(), how, Optional.of(server.webUi()), server);
    }
    System.out.println("Temporal     no Temporal CLI found: using the SDK's in-memory test server instead, which is"
        + " not durable (histories are lost when dev stops) and has no Web UI. To get the real dev server, "
        + TemporalCli.HOW_TO_INSTALL + ".");
    LoopbackTestServer server = LoopbackTestServer.start(port);
    return new Temporal("127.0.0.1:" + port, "in-memory test server", Optional.empty(), server::close);
  }

  private record Temporal(String address, String description, Optional<String> webUi, AutoCloseable server)
      implements AutoCloseable {
    @Override
    public void close() throws Exception {
      server.close();
    }
  }
}
