package dev.kandev.recovery.activities.json;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;

/** The one Jackson configuration the activities share. */
public final class Json {
  private static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .findAndAddModules()
          .build();

  private Json() {}

  public static ObjectMapper mapper() {
    return MAPPER;
  }
}
