package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.store.Database;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** The production process: the worker against an external Temporal server (TEMPORAL_ADDRESS). */
@Command(
    name = "worker",
    mixinStandardHelpOptions = true,
    description = "Run the worker against the Temporal server at TEMPORAL_ADDRESS.")
final class WorkerCommand implements Callable<Integer> {
  @Override
  public Integer call() throws Exception {
    Settings settings = Settings.fromEnvironment();
    try (StopSignal stop = StopSignal.install();
        TemporalConnection temporal = TemporalConnection.open(settings)) {
      if (settings.registerSearchAttributes()) {
        SearchAttributeRegistrar.register(temporal.service, settings.temporalNamespace());
      }
      try (Database database = Database.open(settings.database()).migrate()) {
        System.out.printf("Worker %s polling %s on %s (namespace %s)%n",
            settings.workerInstance(), settings.taskQueue(), settings.temporalAddress(), settings.temporalNamespace());
        RunningWorker.serve(settings, database, temporal.client, stop, "worker");
      }
    }
    return 0;
  }
}
