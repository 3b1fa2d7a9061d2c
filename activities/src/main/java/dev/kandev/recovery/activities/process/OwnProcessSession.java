package dev.kandev.recovery.activities.process;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Starts agents in a process session of their own (util-linux {@code setsid}), so the signals a
 * terminal sends to the worker's process group — Ctrl-C's SIGINT — reach only the worker, which
 * then stops its agents and records them stopped. Where there is no {@code setsid} (not Linux) the
 * agent shares the worker's process group, as before.
 *
 * <p>{@code setsid} execs the agent in place (same pid), because a child of the JVM is never a
 * process group leader; {@code --wait} only matters if it ever were, and then keeps the exit code.
 */
public final class OwnProcessSession {
  private static final Optional<Path> SETSID = Stream.of("/usr/bin/setsid", "/bin/setsid")
      .map(Path::of).filter(Files::isExecutable).findFirst();

  private OwnProcessSession() {}

  /**
   * The command that starts {@code argv} in its own session. The program is resolved here, as the
   * JDK would (the worker's PATH; a name with a slash against the working directory), so a program
   * that does not exist still fails to start instead of starting a {@code setsid} that exits 127.
   */
  public static List<String> command(List<String> argv, Path workingDirectory, String path) throws IOException {
    if (SETSID.isEmpty()) {
      return argv;
    }
    List<String> command = new ArrayList<>(argv.size() + 2);
    command.add(SETSID.get().toString());
    command.add("--wait");
    command.add(resolve(argv.get(0), workingDirectory, path).toString());
    command.addAll(argv.subList(1, argv.size()));
    return command;
  }

  public static Path resolve(String program, Path workingDirectory, String path) throws IOException {
    try {
      if (program.contains("/")) {
        Path candidate = workingDirectory.resolve(program).toAbsolutePath().normalize();
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return candidate;
        }
      } else {
        for (String dir : (path == null ? "" : path).split(File.pathSeparator)) {
          Path candidate = Path.of(dir.isEmpty() ? "." : dir).resolve(program).toAbsolutePath().normalize();
          if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
            return candidate;
          }
        }
      }
    } catch (InvalidPathException e) {
      throw new IOException("Cannot run program \"" + program + "\": " + e.getMessage(), e);
    }
    throw new IOException("Cannot run program \"" + program + "\" (in directory \"" + workingDirectory
        + "\"): no such executable file" + (program.contains("/") ? "" : " on the worker's PATH"));
  }
}
