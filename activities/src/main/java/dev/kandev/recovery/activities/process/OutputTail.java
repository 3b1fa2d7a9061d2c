package dev.kandev.recovery.activities.process;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The last bytes a child wrote to one of its output streams, read to the stream's end on a daemon
 * thread: what failures show of an agent's stderr or of npm's output. Memory stays bounded however
 * much the child writes, and however long its lines are. Thread-safe.
 */
public final class OutputTail {
  /** How much of a stream is kept: the last 8 KiB. */
  public static final int CAPACITY_BYTES = 8 * 1024;

  private final byte[] buffer = new byte[CAPACITY_BYTES];
  private long written;
  private final Thread reader;

  private OutputTail(InputStream stream, String threadName) {
    reader = new Thread(() -> readToEnd(stream), threadName);
    reader.setDaemon(true);
  }

  /** Starts draining {@code stream} on a daemon thread named {@code threadName}. */
  public static OutputTail drain(InputStream stream, String threadName) {
    OutputTail tail = new OutputTail(stream, threadName);
    tail.reader.start();
    return tail;
  }

  private void readToEnd(InputStream stream) {
    byte[] chunk = new byte[4096];
    try (InputStream in = stream) {
      for (int n; (n = in.read(chunk)) > 0; ) {
        append(chunk, n);
      }
    } catch (IOException closed) {
      // the child was killed or its stream closed: what arrived is the tail
    }
  }

  private synchronized void append(byte[] bytes, int length) {
    for (int i = 0; i < length; i++) {
      buffer[(int) (written++ % buffer.length)] = bytes[i];
    }
  }

  /**
   * Waits up to {@code wait} for the stream's end, so that the tail of a child that exited is
   * complete; returns whether the end was reached.
   */
  public boolean awaitEnd(Duration wait) {
    try {
      reader.join(Math.max(1, wait.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return !reader.isAlive();
  }

  /** The tail as text; starts with "…" when earlier output was dropped. */
  public synchronized String text() {
    int size = (int) Math.min(written, buffer.length);
    byte[] out = new byte[size];
    for (int i = 0; i < size; i++) {
      out[i] = buffer[(int) ((written - size + i) % buffer.length)];
    }
    String text = new String(out, StandardCharsets.UTF_8);
    return written > buffer.length ? "…" + text : text;
  }

  /** The tail's lines; the first one is cut when earlier output was dropped. */
  public List<String> lines() {
    return text().lines().toList();
  }
}
