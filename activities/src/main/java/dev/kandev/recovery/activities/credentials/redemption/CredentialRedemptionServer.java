package dev.kandev.recovery.activities.credentials.redemption;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.kandev.recovery.activities.credentials.CredentialException;
import dev.kandev.recovery.activities.credentials.GitCredential;
import dev.kandev.recovery.activities.credentials.LeaseScope;
import dev.kandev.recovery.activities.credentials.broker.CallerCheck;
import dev.kandev.recovery.activities.credentials.broker.CredentialBroker;
import dev.kandev.recovery.activities.http.HttpReplies;
import dev.kandev.recovery.activities.tracing.Spans;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loopback HTTP endpoint the credential helper calls: {@code POST /v1/git-credential} with {@code
 * Authorization: Bearer <lease token>} and git's {@code protocol=}, {@code host=}, {@code path=}
 * lines as the body. Answers in git's credential format, or with a status and a short non-secret
 * {@code error=} line: 400 malformed request, 401 invalid lease, 403 denied scope or terminal
 * session or a caller outside the agent's process tree, 502 provider refused, 503 provider
 * unavailable, 500 misconfiguration.
 *
 * <p>Where the platform shows who holds a socket (Linux {@code /proc}), a lease redeems only for a
 * caller in the process tree of the agent this worker runs for the lease's session ({@link
 * LoopbackCallers}); elsewhere any local caller with the token is served, and a warning says so at
 * start.
 */
public final class CredentialRedemptionServer implements AutoCloseable {
  public static final String PATH = "/v1/git-credential";
  static final int MAX_BODY_BYTES = 8 * 1024;
  private static final Logger log = LoggerFactory.getLogger(CredentialRedemptionServer.class);

  private static final Path PROC = Path.of("/proc");

  private final CredentialBroker broker;
  private final HttpServer server;
  private final ExecutorService executor;
  /** Null where the platform cannot tell callers apart. */
  private final LoopbackCallers callers;

  private CredentialRedemptionServer(
      CredentialBroker broker, HttpServer server, ExecutorService executor, LoopbackCallers callers) {
    this.broker = broker;
    this.server = server;
    this.executor = executor;
    this.callers = callers;
  }

  /**
   * Starts on {@code 127.0.0.1:port}; port 0 picks a free one. {@code agents} names the agent process
   * of a session on this worker: a redemption is served only to that process or its descendants.
   */
  public static CredentialRedemptionServer start(CredentialBroker broker, int port, AgentProcesses agents) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
      ExecutorService executor = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "credential-redemption");
        t.setDaemon(true);
        return t;
      });
      LoopbackCallers callers = LoopbackCallers.available(PROC) ? new LoopbackCallers(PROC, agents) : null;
      if (callers == null) {
        log.warn("credential redemption cannot tell callers apart here (no /proc/net/tcp): any local process with a"
            + " lease token can redeem it while the lease lives");
      }
      CredentialRedemptionServer redemption = new CredentialRedemptionServer(broker, server, executor, callers);
      server.createContext(PATH, redemption::handle);
      server.setExecutor(executor);
      server.start();
      log.info("credential redemption endpoint listening on {}", redemption.url());
      return redemption;
    } catch (IOException e) {
      throw new IllegalStateException("cannot listen on 127.0.0.1:" + port + " for credential redemption", e);
    }
  }

  /** The endpoint URL to put in the child's {@link GitCredentialEnvironment#BROKER_URL}. */
  public URI url() {
    InetSocketAddress address = server.getAddress();
    return URI.create("http://" + address.getAddress().getHostAddress() + ":" + address.getPort() + PATH);
  }

  private void handle(HttpExchange exchange) throws IOException {
    // The helper sends the traceparent of the launch that gave the agent its lease.
    Span span = Spans.start("credential.redeem",
        W3CTraceContextPropagator.getInstance().extract(Context.root(), exchange, REQUEST_HEADERS));
    try (exchange) {
      try {
        serve(exchange, span);
      } catch (CredentialException e) {
        log.info("credential redemption refused: {}", e.toString());
        span.setAttribute("kandev.credential.failure", e.type().name());
        reply(exchange, status(e), "error=" + e.type() + ": " + oneLine(e.getMessage()) + "\n");
      } catch (RuntimeException e) {
        log.warn("credential redemption failed: {}", e.getClass().getName());
        reply(exchange, 500, "error=internal error\n");
      }
    } finally {
      int status = exchange.getResponseCode();
      span.setAttribute("http.response.status_code", status);
      if (status != 200) {
        span.setStatus(StatusCode.ERROR);
      }
      span.end();
    }
  }

  private static final TextMapGetter<HttpExchange> REQUEST_HEADERS = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(HttpExchange exchange) {
      return exchange.getRequestHeaders().keySet();
    }

    @Override
    public String get(HttpExchange exchange, String key) {
      List<String> values = exchange == null ? null : exchange.getRequestHeaders().get(key);
      return values == null || values.isEmpty() ? null : values.get(0);
    }
  };

  private void serve(HttpExchange exchange, Span span) throws IOException {
    if (!PATH.equals(exchange.getRequestURI().getPath())) {
      reply(exchange, 404, "error=not found\n");
      return;
    }
    if (!"POST".equals(exchange.getRequestMethod())) {
      exchange.getResponseHeaders().add("Allow", "POST");
      reply(exchange, 405, "error=use POST\n");
      return;
    }
    String authorization = exchange.getRequestHeaders().getFirst("Authorization");
    if (authorization == null || !authorization.startsWith("Bearer ") || authorization.length() <= 7) {
      reply(exchange, 400, "error=missing Authorization: Bearer <lease token>\n");
      return;
    }
    Map<String, String> fields = readFields(exchange.getRequestBody());
    if (fields == null) {
      reply(exchange, 400, "error=body must be git credential key=value lines of at most " + MAX_BODY_BYTES + " bytes\n");
      return;
    }
    String protocol = fields.get("protocol");
    String host = fields.get("host");
    String path = fields.get("path");
    if (protocol == null || host == null || path == null) {
      reply(exchange, 400, "error=request needs protocol, host and path (set credential.useHttpPath)\n");
      return;
    }
    if (!"https".equals(protocol)) {
      reply(exchange, 400, "error=only https credentials are brokered\n");
      return;
    }
    try {
      LeaseScope.normalizeHost(host);
      LeaseScope.canonicalPath(path);
    } catch (IllegalArgumentException e) {
      reply(exchange, 400, "error=" + oneLine(e.getMessage()) + "\n");
      return;
    }
    span.setAttribute("kandev.credential.host", host);
    CallerCheck caller = callers == null
        ? CallerCheck.ANYONE
        : callers.of(exchange.getRemoteAddress(), server.getAddress().getPort());
    GitCredential credential = broker.redeem(authorization.substring(7).trim(), host, path, caller);
    reply(exchange, 200, credential.toGitCredentialFormat());
  }

  private static int status(CredentialException e) {
    return switch (e.type()) {
      case CREDENTIAL_LEASE_INVALID -> 401;
      case CREDENTIAL_SCOPE_DENIED, CREDENTIAL_SESSION_TERMINAL -> 403;
      case CREDENTIAL_PROVIDER_REJECTED -> 502;
      case CREDENTIAL_PROVIDER_UNAVAILABLE -> 503;
      default -> 500;
    };
  }

  /** Git's {@code key=value} lines; null if too long or not in that form. */
  private static Map<String, String> readFields(InputStream body) throws IOException {
    byte[] bytes = body.readNBytes(MAX_BODY_BYTES + 1);
    if (bytes.length > MAX_BODY_BYTES) {
      return null;
    }
    Map<String, String> fields = new HashMap<>();
    for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
      line = line.strip();
      if (line.isEmpty()) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq <= 0) {
        return null;
      }
      fields.putIfAbsent(line.substring(0, eq), line.substring(eq + 1));
    }
    return fields;
  }

  private static String oneLine(String message) {
    return message == null ? "" : message.replaceAll("[\\r\\n]", " ");
  }

  private static void reply(HttpExchange exchange, int status, String body) throws IOException {
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    HttpReplies.reply(exchange, status, "text/plain; charset=utf-8", body);
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
