package dev.kandev.recovery.worker.harness;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.GZIPInputStream;

/**
 * An OTLP/HTTP trace receiver on loopback ({@code POST /v1/traces}, protobuf, as the Java and Go
 * exporters send by default): it keeps every span it is sent. It reads the protobuf wire format of
 * opentelemetry-proto's {@code ExportTraceServiceRequest} itself, for the fields a test asserts.
 */
public final class OtlpReceiver implements AutoCloseable {
  /** A received span: ids in lowercase hex, parent "" for a root; attribute values as strings. */
  public record ReceivedSpan(String service, String traceId, String spanId, String parentSpanId, String name,
      Map<String, String> attributes) {}

  private final HttpServer server;
  private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

  private OtlpReceiver(HttpServer server) {
    this.server = server;
  }

  public static OtlpReceiver start() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    OtlpReceiver receiver = new OtlpReceiver(server);
    server.createContext("/v1/traces", receiver::handle);
    server.start();
    return receiver;
  }

  /** For {@code OTEL_EXPORTER_OTLP_ENDPOINT}: the exporters append {@code /v1/traces}. */
  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  public List<ReceivedSpan> spans() {
    return List.copyOf(spans);
  }

  public List<ReceivedSpan> spansOf(String traceId) {
    return spans.stream().filter(s -> s.traceId().equals(traceId)).toList();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      InputStream body = exchange.getRequestBody();
      if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
        body = new GZIPInputStream(body);
      }
      int status = 200;
      try {
        spans.addAll(request(body.readAllBytes()));
      } catch (IOException | RuntimeException e) {
        status = 400;
      }
      exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
      exchange.sendResponseHeaders(status, -1); // an empty ExportTraceServiceResponse
    }
  }

  /** ExportTraceServiceRequest: 1 resource_spans. */
  static List<ReceivedSpan> request(byte[] bytes) throws IOException {
    List<ReceivedSpan> received = new ArrayList<>();
    for (ByteString resourceSpans : messages(bytes, 1)) {
      String service = "";
      List<ByteString> scopes = new ArrayList<>();
      CodedInputStream in = resourceSpans.newCodedInput();
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        switch (WireFormat.getTagFieldNumber(tag)) {
          case 1 -> service = keyValues(messages(in.readBytes(), 1)).getOrDefault("service.name", ""); // resource
          case 2 -> scopes.add(in.readBytes()); // scope_spans
          default -> in.skipField(tag);
        }
      }
      for (ByteString scope : scopes) {
        for (ByteString span : messages(scope.toByteArray(), 2)) {
          received.add(span(service, span));
        }
      }
    }
    return received;
  }

  /** Span: 1 trace_id, 2 span_id, 4 parent_span_id, 5 name, 9 attributes. */
  private static ReceivedSpan span(String service, ByteString bytes) throws IOException {
    String traceId = "", spanId = "", parent = "", name = "";
    List<ByteString> attributes = new ArrayList<>();
    CodedInputStream in = bytes.newCodedInput();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> traceId = hex(in.readBytes());
        case 2 -> spanId = hex(in.readBytes());
        case 4 -> parent = hex(in.readBytes());
        case 5 -> name = in.readStringRequireUtf8();
        case 9 -> attributes.add(in.readBytes());
        default -> in.skipField(tag);
      }
    }
    return new ReceivedSpan(service, traceId, spanId, parent, name, keyValues(attributes));
  }

  /** KeyValue: 1 key, 2 AnyValue (1 string, 2 bool, 3 int, 4 double; others are skipped). */
  private static Map<String, String> keyValues(List<ByteString> keyValues) throws IOException {
    Map<String, String> map = new LinkedHashMap<>();
    for (ByteString keyValue : keyValues) {
      String key = "", value = "";
      CodedInputStream in = keyValue.newCodedInput();
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        switch (WireFormat.getTagFieldNumber(tag)) {
          case 1 -> key = in.readStringRequireUtf8();
          case 2 -> value = anyValue(in.readBytes());
          default -> in.skipField(tag);
        }
      }
      map.put(key, value);
    }
    return map;
  }

  private static String anyValue(ByteString bytes) throws IOException {
    CodedInputStream in = bytes.newCodedInput();
    String value = "";
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (WireFormat.getTagFieldNumber(tag)) {
        case 1 -> value = in.readStringRequireUtf8();
        case 2 -> value = Boolean.toString(in.readBool());
        case 3 -> value = Long.toString(in.readInt64());
        case 4 -> value = Double.toString(in.readDouble());
        default -> in.skipField(tag);
      }
    }
    return value;
  }

  /** The length-delimited fields numbered {@code field} of a message. */
  private static List<ByteString> messages(byte[] message, int field) throws IOException {
    return messages(ByteString.copyFrom(message), field);
  }

  private static List<ByteString> messages(ByteString message, int field) throws IOException {
    List<ByteString> fields = new ArrayList<>();
    CodedInputStream in = message.newCodedInput();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (WireFormat.getTagFieldNumber(tag) == field && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        fields.add(in.readBytes());
      } else {
        in.skipField(tag);
      }
    }
    return fields;
  }

  private static String hex(ByteString bytes) {
    return HexFormat.of().formatHex(bytes.toByteArray());
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
