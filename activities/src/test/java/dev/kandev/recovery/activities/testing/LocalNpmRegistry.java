package dev.kandev.recovery.activities.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A tiny npm registry on 127.0.0.1 serving one package (packument + tarball), so npm resolves a
 * plain registry spec like {@code kandev-test-agent} exactly as it resolves {@code opencode-ai} in
 * production. {@link #stopServing()} makes it answer 404, like an unpublished package.
 */
public final class LocalNpmRegistry implements AutoCloseable {
  private final HttpServer server;
  private final String name;
  private final String version;
  private final byte[] tarball;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private volatile boolean serving = true;
  private volatile CountDownLatch gate = new CountDownLatch(0);

  private LocalNpmRegistry(HttpServer server, String name, String version, byte[] tarball) {
    this.server = server;
    this.name = name;
    this.version = version;
    this.tarball = tarball;
  }

  /** The test agent's package, packed into {@code dir}, as the registry's one package. */
  public static LocalNpmRegistry serveTestAgent(Path dir) throws IOException, InterruptedException {
    return serve(TestAgentPackage.NAME, TestAgentPackage.VERSION, TestAgentPackage.pack(dir));
  }

  public static LocalNpmRegistry serve(String name, String version, byte[] tarball) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    LocalNpmRegistry registry = new LocalNpmRegistry(server, name, version, tarball);
    server.createContext("/", registry::handle);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
    return registry;
  }

  /** For {@code npm_config_registry}. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
  }

  public void stopServing() {
    serving = false;
  }

  /** Requests wait (up to a minute) until {@link #release()}: keeps an npm command running. */
  public void hold() {
    gate = new CountDownLatch(1);
  }

  public void release() {
    gate.countDown();
  }

  /** Paths requested so far, in order. */
  public List<String> requests() {
    return List.copyOf(requests);
  }

  private void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    requests.add(path);
    try (exchange) {
      try {
        gate.await(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      String tarballPath = "/" + name + "/-/" + name + "-" + version + ".tgz";
      if (serving && path.equals(tarballPath)) {
        reply(exchange, 200, "application/octet-stream", tarball);
      } else if (serving && path.equals("/" + name)) {
        reply(exchange, 200, "application/json", packument(tarballPath).getBytes(StandardCharsets.UTF_8));
      } else {
        reply(exchange, 404, "application/json", "{\"error\":\"Not found\"}".getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  private String packument(String tarballPath) {
    String integrity = "sha512-" + Base64.getEncoder().encodeToString(digest("SHA-512"));
    String shasum = HexFormat.of().formatHex(digest("SHA-1"));
    return """
        {"name":"%1$s","dist-tags":{"latest":"%2$s"},"versions":{"%2$s":{"name":"%1$s","version":"%2$s",\
        "bin":{"%1$s":"bin/%1$s.js"},"dist":{"tarball":"%3$s","shasum":"%4$s","integrity":"%5$s"}}}}"""
        .formatted(name, version, url() + tarballPath.substring(1), shasum, integrity);
  }

  private byte[] digest(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm).digest(tarball);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void reply(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, body.length);
    exchange.getResponseBody().write(body);
  }

  @Override
  public void close() {
    release();
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
