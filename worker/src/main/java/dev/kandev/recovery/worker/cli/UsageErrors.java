package dev.kandev.recovery.worker.cli;

import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;

/** A usage error is one line on stderr, naming what is wrong and where the usage is: not the whole usage. */
final class UsageErrors implements IParameterExceptionHandler {
  @Override
  public int handleParseException(ParameterException e, String[] args) {
    CommandLine command = e.getCommandLine();
    String name = command.getCommandSpec().qualifiedName();
    String message = String.valueOf(e.getMessage()).strip().replaceAll("\\s*\\R\\s*", " ");
    command.getErr().println(name + ": " + message + " (see " + name + " --help)");
    return ExitCodes.USAGE;
  }
}
