package dev.kandev.recovery.worker.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine;

/** The kandev-recovery executable: the worker, the embedded dev mode and the CLI starters. */
@Command(
    name = "kandev-recovery",
    mixinStandardHelpOptions = true,
    version = "kandev-recovery 0.1.0",
    description = "Durable resume of Kandev agent sessions and repair of managed npm agent runtimes, on Temporal.",
    subcommands = {DevCommand.class, WorkerCommand.class, ResumeCommand.class, ListResumesCommand.class, UpdateRuntimeCommand.class})
public final class Main implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
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
}
