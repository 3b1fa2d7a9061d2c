package dev.kandev.recovery.activities.acp;

import java.nio.charset.StandardCharsets;

/** Keeps only the last {@code capacity} bytes written to it (the stderr tail of an agent). */
final class BoundedTail {
  private final byte[] buffer;
  private long written;

  BoundedTail(int capacity) {
    this.buffer = new byte[capacity];
  }

  synchronized void write(byte[] bytes, int offset, int length) {
    for (int i = 0; i < length; i++) {
      buffer[(int) (written++ % buffer.length)] = bytes[offset + i];
    }
  }

  synchronized String text() {
    int size = (int) Math.min(written, buffer.length);
    byte[] out = new byte[size];
    for (int i = 0; i < size; i++) {
      out[i] = buffer[(int) ((written - size + i) % buffer.length)];
    }
    String text = new String(out, StandardCharsets.UTF_8);
    return written > buffer.length ? "…" + text : text;
  }
}
