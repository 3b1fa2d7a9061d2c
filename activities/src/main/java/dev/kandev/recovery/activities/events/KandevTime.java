package dev.kandev.recovery.activities.events;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Times as Kandev's Go code writes them into its events. */
public final class KandevTime {
  private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss").withZone(ZoneOffset.UTC);

  private KandevTime() {}

  /**
   * Go's {@code time.RFC3339Nano} of a UTC time: seconds always, the fraction without trailing zeros
   * (none if whole), then {@code Z}; e.g. {@code 2026-12-04T15:33:02.1234Z}.
   */
  public static String rfc3339Nano(Instant time) {
    StringBuilder out = new StringBuilder(SECONDS.format(time));
    int nanos = time.getNano();
    if (nanos != 0) {
      String fraction = String.format("%09d", nanos);
      int end = fraction.length();
      while (fraction.charAt(end - 1) == '0') {
        end--;
      }
      out.append('.').append(fraction, 0, end);
    }
    return out.append('Z').toString();
  }

  /** The same of one of Kandev's naive {@code timestamp} columns, which hold UTC. */
  public static String rfc3339Nano(LocalDateTime utc) {
    return rfc3339Nano(utc.toInstant(ZoneOffset.UTC));
  }
}
