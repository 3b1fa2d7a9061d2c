package dev.kandev.recovery.worker.cli;

import dev.kandev.recovery.workflows.RecoveryIds;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** An id argument the client would refuse too, but only after connecting: a usage error at once. */
final class CliIds {
  private CliIds() {}

  static void requireValid(CommandSpec spec, String label, String id) {
    RecoveryIds.problem(label, id).ifPresent(problem -> {
      throw new ParameterException(spec.commandLine(), problem);
    });
  }
}
