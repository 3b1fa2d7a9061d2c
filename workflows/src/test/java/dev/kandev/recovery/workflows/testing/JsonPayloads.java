package dev.kandev.recovery.workflows.testing;

import com.google.protobuf.ByteString;
import io.temporal.api.common.v1.Payload;
import java.nio.charset.StandardCharsets;

/** Payloads as a starter of another language writes them: JSON text, encoding {@code json/plain}. */
public final class JsonPayloads {
  private JsonPayloads() {}

  public static Payload json(String text) {
    return Payload.newBuilder()
        .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
        .setData(ByteString.copyFrom(text, StandardCharsets.UTF_8))
        .build();
  }
}
