package dev.kandev.recovery.worker.cli;

import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.temporal.TemporalConnection;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What {@code resume} and {@code update-runtime} share: their arguments are checked before anything
 * connects (a usage error, exit code 2), then the settings are read and Temporal connected, and the
 * command runs on that connection. Both start a run and follow it: who asks, and for how long to
 * follow, are their common options, with each command's defaults.
 */
@Command(defaultValueProvider = StarterCommand.Defaults.class)
abstract class StarterCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--requested-by", description = "Who asks, recorded with the run (default: ${DEFAULT-VALUE}).")
  String requestedBy;

  @Option(names = "--timeout",
      description = "How long to follow the run for its outcome: seconds, 90s, 15m, 2h or ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  /** The default of {@code --requested-by}. */
  abstract String defaultRequester();

  /** The default of {@code --timeout}, as a user would write it. */
  abstract String defaultTimeout();

  /** Each command's own defaults of the common options. */
  static final class Defaults implements IDefaultValueProvider {
    @Override
    public String defaultValue(ArgSpec arg) {
      if (arg.command().userObject() instanceof StarterCommand command && arg instanceof OptionSpec option) {
        return switch (option.longestName()) {
          case "--requested-by" -> command.defaultRequester();
          case "--timeout" -> command.defaultTimeout();
          default -> null;
        };
      }
      return null;
    }
  }

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
