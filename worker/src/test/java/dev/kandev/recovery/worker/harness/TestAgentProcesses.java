package dev.kandev.recovery.worker.harness;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The test agent's processes of one test as the operating system sees them, read from {@code /proc}
 * — not from what the worker recorded: every live process whose argv carries the test's mode file
 * ({@link TestAgentFiles#profile} puts it there), with its working directory, which is the workspace
 * of the session it was launched for. Zombies do not count (their process has ended).
 */
public final class TestAgentProcesses {
  private static final Path PROC = Path.of("/proc");

  private final String argvMarker;

  /** The agents started with {@code --mode-file=<modeFile>}: the test agent of one {@link RecoveryCluster}. */
  public TestAgentProcesses(Path modeFile) {
    if (!Files.isDirectory(PROC.resolve("self"))) {
      throw new IllegalStateException("no /proc: the processes of the agents cannot be looked at on this system");
    }
    this.argvMarker = "--mode-file=" + modeFile;
  }

  /** One live agent process. */
  public record AgentProcess(long pid, Path workingDirectory) {}

  /** The live agent processes now. */
  public List<AgentProcess> live() {
    try (Stream<Path> entries = Files.list(PROC)) {
      return entries.filter(entry -> entry.getFileName().toString().chars().allMatch(Character::isDigit))
          .map(this::agent).flatMap(Optional::stream).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The pids of the live agent processes that run in {@code workspace}. */
  public Set<Long> in(Path workspace) {
    return live().stream().filter(p -> p.workingDirectory().equals(workspace)).map(AgentProcess::pid)
        .collect(Collectors.toUnmodifiableSet());
  }

  private Optional<AgentProcess> agent(Path proc) {
    try {
      List<String> argv = List.of(new String(Files.readAllBytes(proc.resolve("cmdline")), UTF_8).split("\0"));
      if (!argv.contains(argvMarker)) {
        return Optional.empty();
      }
      String stat = Files.readString(proc.resolve("stat"));
      char state = stat.charAt(stat.lastIndexOf(')') + 2);
      if (state == 'Z' || state == 'X') {
        return Optional.empty();
      }
      return Optional.of(new AgentProcess(Long.parseLong(proc.getFileName().toString()),
          Files.readSymbolicLink(proc.resolve("cwd"))));
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // it ended while being read, or is not ours to read
    }
  }
}
