package dev.kandev.recovery.worker.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * CPU time of processes from Linux's {@code /proc/<pid>/stat}, in milliseconds. A process tree's CPU
 * is, over each of its live processes, its own time (utime + stime) plus what it has reaped
 * (cutime + cstime: a waited-for child's whole time, including what that child had reaped). So a
 * process that ends between two readings is not lost: its parent's cutime takes it at the wait.
 * The JVM's own time is the JVM's process CPU (every thread, not its children).
 */
final class ProcessCpu {
  /** USER_HZ: {@code /proc} counts in ticks of 1/100 s on every Linux architecture Java runs on. */
  private static final long TICKS_PER_SECOND = 100;

  private ProcessCpu() {}

  /** Own and reaped CPU of one process (not of its live children); empty once it is gone. */
  static Optional<Long> millis(long pid) {
    return stat(pid).map(fields -> ticksToMillis(
        Long.parseLong(fields[11]) + Long.parseLong(fields[12]) + Long.parseLong(fields[13]) + Long.parseLong(fields[14])));
  }

  /** CPU of the trees of {@code roots} (each root and its live descendants, each counted once). */
  static long treeMillis(Collection<ProcessHandle> roots) {
    return sum(withDescendants(roots.stream()));
  }

  /** The JVM's own CPU (all its threads). */
  /** The JIT compiler's time in this JVM so far (its compilations' durations, as HotSpot counts them). */
  static long jitMillis() {
    return ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
  }

  static long jvmMillis() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1_000_000;
  }

  /**
   * CPU of the JVM's children outside {@code excluded} (servers it started): those it has reaped
   * (its own cutime + cstime) and those still alive with their trees. The agents are children of
   * the JVM (the agent host starts them; setsid execs in place), so this is every agent's whole life,
   * its exit included.
   */
  static long childrenMillis(Collection<ProcessHandle> excluded) {
    Set<Long> skip = new LinkedHashSet<>();
    withDescendants(excluded.stream()).forEach(skip::add);
    long reaped = stat(ProcessHandle.current().pid())
        .map(fields -> ticksToMillis(Long.parseLong(fields[13]) + Long.parseLong(fields[14]))).orElseThrow();
    Stream<ProcessHandle> live = ProcessHandle.current().children().filter(child -> !skip.contains(child.pid()));
    return reaped + sum(withDescendants(live));
  }

  /** The parent of {@code pid} (a PostgreSQL backend's is its postmaster). */
  static long parent(long pid) {
    return stat(pid).map(fields -> Long.parseLong(fields[1]))
        .orElseThrow(() -> new IllegalStateException("no process " + pid));
  }

  private static Set<Long> withDescendants(Stream<ProcessHandle> roots) {
    Set<Long> pids = new LinkedHashSet<>();
    roots.filter(ProcessHandle::isAlive).forEach(root -> {
      pids.add(root.pid());
      root.descendants().forEach(d -> pids.add(d.pid()));
    });
    return pids;
  }

  private static long sum(Set<Long> pids) {
    return pids.stream().mapToLong(pid -> millis(pid).orElse(0L)).sum();
  }

  private static long ticksToMillis(long ticks) {
    return ticks * 1000 / TICKS_PER_SECOND;
  }

  /** The fields after the command name: [0] is field 3 (state), [1] ppid, [11] utime … [14] cstime. */
  private static Optional<String[]> stat(long pid) {
    try {
      String line = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
      return Optional.of(line.substring(line.lastIndexOf(')') + 2).trim().split(" "));
    } catch (NoSuchFileException gone) {
      return Optional.empty();
    } catch (IOException e) {
      if (!Files.exists(Path.of("/proc", Long.toString(pid)))) {
        return Optional.empty();
      }
      throw new IllegalStateException("cannot read /proc/" + pid + "/stat", e);
    }
  }
}
