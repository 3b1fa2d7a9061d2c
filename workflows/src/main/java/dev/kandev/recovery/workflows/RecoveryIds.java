package dev.kandev.recovery.workflows;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * What a starter's ids ({@code sessionId}, {@code agentId}) must be. They become workflow ids
 * ({@code resume-session-<sessionId>}, {@code runtime-update-<agentId>}) and search attribute
 * values. Temporal on SQL (PostgreSQL, MySQL) keeps workflow ids in 255-character columns and
 * refuses a longer one ({@code WorkflowId exceeds maximum allowed length}); both prefixes are 15
 * bytes, so an id of at most 240 bytes makes a workflow id that every Temporal persistence stores.
 * That is still room for ids of any Kandev version (UUIDs are 36).
 */
public final class RecoveryIds {
  /** At most this many bytes in UTF-8 (as {@code len(id)} counts in Go). */
  public static final int MAX_BYTES = 240;

  /** The longest workflow id SQL-backed Temporal stores; {@link #MAX_BYTES} plus either prefix fits it. */
  public static final int MAX_WORKFLOW_ID_BYTES = 255;

  private RecoveryIds() {}

  /** Why {@code value} is not a valid {@code field}, or empty if it is. */
  public static Optional<String> problem(String field, String value) {
    if (value == null || value.isBlank()) {
      return Optional.of(field + " is missing");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c)) {
        return Optional.of(field + " contains a control character (U+%04X at index %d)".formatted((int) c, i));
      }
    }
    if (!StandardCharsets.UTF_8.newEncoder().canEncode(value)) {
      return Optional.of(field + " is not valid Unicode (an unpaired surrogate)");
    }
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_BYTES) {
      return Optional.of(field + " is " + bytes + " bytes long; at most " + MAX_BYTES + " (UTF-8) are allowed");
    }
    return Optional.empty();
  }
}
