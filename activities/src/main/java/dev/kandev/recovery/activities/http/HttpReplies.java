package dev.kandev.recovery.activities.http;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** The one way our JDK {@code HttpServer} endpoints answer: a status, a text body, the exchange closed. */
public final class HttpReplies {
  private HttpReplies() {}

  /**
   * Sends {@code body} (UTF-8) with {@code status} and {@code contentType}, then closes the exchange;
   * a {@code HEAD} request gets the headers only. Headers set on the exchange before are kept.
   */
  public static void reply(HttpExchange exchange, int status, String contentType, String body) throws IOException {
    try (exchange) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", contentType);
      boolean head = "HEAD".equals(exchange.getRequestMethod());
      exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
      if (!head) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    }
  }
}
