package dev.kandev.recovery.worker.cli;

import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What {@code resume} and {@code update-runtime} share: their arguments are checked before anything
 * connects (a usage error, exit code 2), then the settings are read and Temporal connected, and the
 * command runs on that connection.
 */
abstract class StarterCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public final Integer call() throws Exception {
    checkArguments();
    Settings settings = Settings.fromEnvironment();
    try (TemporalConnection temporal = TemporalConnection.open(settings)) {
      return runConnected(settings, temporal);
    }
  }

  /** Refuses what the server would refuse only after connecting: {@link #usageError}. */
  abstract void checkArguments();

  abstract int runConnected(Settings settings, TemporalConnection temporal) throws Exception;

  final ParameterException usageError(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  final void requireValidId(String label, String id) {
    CliIds.requireValid(spec, label, id);
  }

  final TaskQueues taskQueues(Settings settings, TemporalConnection temporal) {
    return new TaskQueues(temporal.service, settings.temporalNamespace());
  }
}
