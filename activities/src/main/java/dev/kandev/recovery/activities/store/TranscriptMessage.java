package dev.kandev.recovery.activities.store;

import java.util.Objects;

/**
 * One transcript message.
 *
 * @param role {@code user}, {@code agent}, {@code thought}, {@code tool} or {@code system}
 * @param providerMessageId the agent's message id ({@code messageId} / {@code toolCallId}), or null
 */
public record TranscriptMessage(String role, String content, String providerMessageId) {
  public TranscriptMessage {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(content, "content");
    if (providerMessageId != null && providerMessageId.isBlank()) {
      providerMessageId = null;
    }
  }
}
