package dev.kandev.recovery.worker.cli;

import dev.kandev.recovery.worker.config.BuildInfo;
import dev.kandev.recovery.worker.tracing.Tracing;
import dev.kandev.recovery.workflows.ContractVersion;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigurationException;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/** The kandev-recovery executable: the worker, the embedded dev mode and the CLI starters. */
@Command(
    name = "kandev-recovery",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Durable resume of Kandev agent sessions and repair of managed npm agent runtimes, on Temporal.",
    subcommands = {DevCommand.class, WorkerCommand.class, ResumeCommand.class, ListResumesCommand.class, UpdateRuntimeCommand.class})
public final class Main implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    try {
      Tracing.installFromEnvironment();
    } catch (ConfigurationException e) {
      String cause = e.getCause() == null ? "" : ": " + e.getCause().getMessage();
      System.err.println("kandev-recovery: tracing (OTEL_*): " + e.getMessage() + cause);
      System.exit(ExitCodes.USAGE);
    }
    System.exit(commandLine().execute(args));
  }

  /**
   * The command line with the error handling every command shares ({@link CliErrors}, {@link
   * UsageErrors}, {@link ExitCodes}) and one duration format for its options ({@link CliDuration}).
   */
  static CommandLine commandLine() {
    return new CommandLine(new Main()).registerConverter(java.time.Duration.class, new CliDuration())
        .setExecutionExceptionHandler(new CliErrors()).setParameterExceptionHandler(new UsageErrors());
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** {@code --version}: the jar's release and the contract version it serves. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"kandev-recovery " + BuildInfo.version() + " (contract " + ContractVersion.CURRENT + ")"};
    }
  }
}
