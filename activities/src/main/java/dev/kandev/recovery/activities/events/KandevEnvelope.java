package dev.kandev.recovery.activities.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Kandev's bus envelope ({@code bus.Event}): {@code {"id","type","subject","source","timestamp","data"}}.
 * Kandev's consumers drop an event whose {@code id} is not a string or whose {@code timestamp} is not
 * RFC 3339, and dispatch on {@code type}, so {@code type} is always the subject.
 */
public final class KandevEnvelope {
  /** The producer name our events carry; no consumer of Kandev's filters on it. */
  public static final String SOURCE = "kandev-recovery";

  private final ObjectMapper json;

  public KandevEnvelope(ObjectMapper json) {
    this.json = json;
  }

  /** A new event of {@code type} (published on the subject of the same name) carrying {@code data}, stamped {@code now}. */
  public KandevEvent wrap(String type, Map<String, Object> data, Instant now) {
    UUID id = UUID.randomUUID();
    Map<String, Object> envelope = new LinkedHashMap<>();
    envelope.put("id", id.toString());
    envelope.put("type", type);
    envelope.put("subject", type);
    envelope.put("source", SOURCE);
    envelope.put("timestamp", KandevTime.rfc3339Nano(now));
    envelope.put("data", data);
    try {
      return new KandevEvent(id, type, json.writeValueAsString(envelope));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the data of a " + type + " event does not serialize as JSON", e);
    }
  }
}
