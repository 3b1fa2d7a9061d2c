package dev.kandev.recovery.worker.recovery;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;

/**
 * The process of the same command ({@code dev.pid}, {@code worker.pid}) that ran before this one
 * with the same state folder, as it recorded itself there: its pid, the moment its process started, its worker instance and host. A
 * process that died (SIGKILL, a crash) still counts as alive in {@code worker_presence} until it
 * misses its beats for a minute; its successor on the same host can tell at once that it is gone —
 * its pid is dead, or belongs to a process that started at another moment — and recover its
 * sessions without waiting. Where {@code /proc} exists the moment is the process' start in clock
 * ticks since boot, which a step of the wall clock (NTP, a VM restored from a snapshot) leaves as it
 * was; the start instant the JDK derives from the wall clock is the fallback elsewhere. A process
 * that stops cleanly removes its entry ({@link #forget}), so its successor finds no predecessor and
 * has nothing to say.
 */
public record Predecessor(long pid, long startedAtMillis, long startTicks, String workerInstance, String host) {
  private static final long UNKNOWN = -1;

  /** The predecessor the state folder records, if any (a file that cannot be read counts as none). */
  public static Optional<Predecessor> read(Path file) {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    Properties entry = new Properties();
    try (Reader in = Files.newBufferedReader(file)) {
      entry.load(in);
      return Optional.of(new Predecessor(Long.parseLong(entry.getProperty("pid")),
          Long.parseLong(entry.getProperty("startedAtMillis")),
          Long.parseLong(entry.getProperty("startTicks", Long.toString(UNKNOWN))), entry.getProperty("workerInstance"),
          entry.getProperty("host")));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** This process, as its successor will read it. */
  public static void record(Path file, String workerInstance, String host) {
    ProcessHandle self = ProcessHandle.current();
    Properties entry = new Properties();
    entry.setProperty("pid", Long.toString(self.pid()));
    entry.setProperty("startedAtMillis", Long.toString(startedAtMillis(self)));
    entry.setProperty("startTicks", Long.toString(startTicks(self.pid())));
    entry.setProperty("workerInstance", workerInstance);
    entry.setProperty("host", host);
    try {
      Files.createDirectories(file.getParent());
      Path temporary = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
      try {
        try (Writer out = Files.newBufferedWriter(temporary)) {
          entry.store(out, "the kandev-recovery worker that runs (or last ran) with this state folder");
        }
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(temporary); // gone once moved; left only by a failed write or move
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /**
   * This process stopped cleanly (its agents stopped and recorded, its presence left): its successor
   * has nothing to take over, so the file no longer names it. A file naming another process is left.
   */
  public static void forget(Path file, String workerInstance) {
    if (read(file).filter(p -> p.workerInstance().equals(workerInstance)).isPresent()) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot remove " + file, e);
      }
    }
  }

  /** Whether the recorded process still runs on this machine (the same pid, started at the same moment). */
  public boolean isAlive() {
    return ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .filter(this::startedAsRecorded)
        .isPresent();
  }

  private boolean startedAsRecorded(ProcessHandle process) {
    long ticks = startTicks(process.pid());
    return ticks != UNKNOWN && startTicks != UNKNOWN ? ticks == startTicks : startedAtMillis(process) == startedAtMillis;
  }

  /** Field 22 of {@code /proc/PID/stat}: the start in clock ticks since boot (the name before it may hold spaces). */
  static long startTicks(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] afterName = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(afterName[19]);
    } catch (IOException | RuntimeException e) {
      return UNKNOWN;
    }
  }

  private static long startedAtMillis(ProcessHandle process) {
    return process.info().startInstant().map(Instant::toEpochMilli).orElse(UNKNOWN);
  }
}
