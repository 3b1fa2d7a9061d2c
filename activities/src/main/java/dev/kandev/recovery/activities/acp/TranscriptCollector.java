package dev.kandev.recovery.activities.acp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.store.TranscriptMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * Assembles streamed {@code session/update} content into whole messages: consecutive chunks of the
 * same kind and message id are one message; a tool call is a message of its own. Only collects
 * between {@link #start()} and {@link #finish()} (a load replay or a prompt turn).
 */
public final class TranscriptCollector {
  private final List<TranscriptMessage> messages = new ArrayList<>();
  private boolean collecting;
  private String role;
  private String messageId;
  private StringBuilder text;

  public synchronized void start() {
    messages.clear();
    role = null;
    messageId = null;
    text = null;
    collecting = true;
  }

  public synchronized void onUpdate(JsonNode update) {
    if (!collecting) {
      return;
    }
    String kind = update.path("sessionUpdate").asText();
    switch (kind) {
      case "user_message_chunk" -> chunk("user", update);
      case "agent_message_chunk" -> chunk("agent", update);
      case "agent_thought_chunk" -> chunk("thought", update);
      case "tool_call" -> {
        flush();
        messages.add(new TranscriptMessage(
            "tool", update.path("title").asText(""), update.path("toolCallId").asText(null)));
      }
      default -> {
        // plans, tool call progress, command lists, modes, usage: not transcript content
      }
    }
  }

  private void chunk(String chunkRole, JsonNode update) {
    String id = update.path("messageId").isTextual() ? update.path("messageId").asText() : null;
    boolean sameMessage =
        text != null && chunkRole.equals(role) && (id == null || messageId == null || id.equals(messageId));
    if (!sameMessage) {
      flush();
      role = chunkRole;
      messageId = id;
      text = new StringBuilder();
    } else if (messageId == null) {
      messageId = id;
    }
    JsonNode content = update.path("content");
    if ("text".equals(content.path("type").asText())) {
      text.append(content.path("text").asText(""));
    } else if (content.has("type")) {
      text.append('[').append(content.path("type").asText()).append(']');
    }
  }

  private void flush() {
    if (text != null) {
      messages.add(new TranscriptMessage(role, text.toString(), messageId));
    }
    role = null;
    messageId = null;
    text = null;
  }

  /** Ends collecting and returns the messages, the last one included even if it was cut off. */
  public synchronized List<TranscriptMessage> finish() {
    flush();
    collecting = false;
    return List.copyOf(messages);
  }
}
