package dev.kandev.recovery.worker.cli;

import java.io.PrintStream;

/**
 * The lines of a follower that may outlive the command's deadline on a thread of its own: once
 * closed, nothing more of it reaches the terminal, so the outcome line stays the last.
 */
final class GatedOutput extends PrintStream {
  private volatile boolean closed;

  GatedOutput(PrintStream out) {
    super(out, true);
  }

  @Override
  public void println(String line) {
    synchronized (this) {
      if (!closed) {
        super.println(line);
      }
    }
  }

  @Override
  public PrintStream printf(String format, Object... args) {
    synchronized (this) {
      return closed ? this : super.printf(format, args);
    }
  }

  /** Stops its output; the stream beneath stays open. */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
    }
  }
}
