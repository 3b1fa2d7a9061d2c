package dev.kandev.recovery.worker.observability;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.kandev.recovery.activities.http.HttpReplies;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The worker's HTTP endpoint ({@code KANDEV_HTTP_PORT} on {@code KANDEV_HTTP_ADDRESS}, loopback unless
 * a container says otherwise; it has no authentication): {@code GET /metrics} (Prometheus text),
 * {@code /healthz} (200 while the process runs and its worker polls), {@code /readyz} (200 when
 * PostgreSQL and Temporal answer, else 503 naming what does not).
 */
public final class HealthServer implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor;

  private HealthServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * @param polling whether the worker polls its task queue
   * @param unready what is not reachable now (empty: ready)
   */
  public static HealthServer start(String address, int port, Observability observability, BooleanSupplier polling,
      Supplier<List<String>> unready) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(address), port), 0);
      ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
        Thread thread = new Thread(r, "health-http");
        thread.setDaemon(true);
        return thread;
      });
      server.setExecutor(executor);
      server.createContext("/metrics", exchange ->
          respond(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", observability.scrape()));
      server.createContext("/healthz", exchange -> {
        boolean ok = polling.getAsBoolean();
        respond(exchange, ok ? 200 : 503, "text/plain; charset=utf-8", ok ? "ok\n" : "the worker does not poll\n");
      });
      server.createContext("/readyz", exchange -> {
        List<String> problems = unready.get();
        respond(exchange, problems.isEmpty() ? 200 : 503, "text/plain; charset=utf-8",
            problems.isEmpty() ? "ready\n" : String.join("\n", problems) + "\n");
      });
      server.start();
      return new HealthServer(server, executor);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve KANDEV_HTTP_PORT " + port + " on KANDEV_HTTP_ADDRESS " + address + ": "
          + e.getMessage(), e);
    }
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** Where it listens, as a URL's authority: {@code 127.0.0.1:9464}, {@code [::1]:9464}. */
  public String authority() {
    InetSocketAddress bound = server.getAddress();
    String host = bound.getAddress().getHostAddress();
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + bound.getPort();
  }

  private static void respond(HttpExchange exchange, int status, String type, String body) throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      HttpReplies.reply(exchange, status, type, body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
