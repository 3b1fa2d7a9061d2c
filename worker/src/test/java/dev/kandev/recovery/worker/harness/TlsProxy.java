package dev.kandev.recovery.worker.harness;

import dev.kandev.recovery.activities.testing.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A TLS-terminating gRPC proxy in front of a plaintext Temporal server: Debian's nginx with {@code
 * grpc_pass}, certificates made here with openssl. Port {@link #mtlsPort} requires a client
 * certificate of {@link #ca}; port {@link #apiKeyPort} requires {@code authorization: Bearer <apiKey>}
 * instead, as the SDKs send an API key.
 */
public final class TlsProxy implements AutoCloseable {
  public static final String SERVER_NAME = "temporal.kandev.test";

  public final Path dir;
  public final int mtlsPort = RealTemporalServer.freePort();
  public final int apiKeyPort = RealTemporalServer.freePort();
  public final String apiKey = "kandev-test-api-key-" + System.nanoTime();
  private final Process nginx;

  private TlsProxy(Path dir, String upstream) {
    this.dir = dir;
    try {
      Files.createDirectories(dir.resolve("temp"));
      makeCertificates();
      Files.writeString(dir.resolve("nginx.conf"), """
          daemon off;
          pid %1$s/nginx.pid;
          error_log %1$s/error.log info;
          events {}
          http {
            access_log %1$s/access.log;
            client_body_temp_path %1$s/temp;
            proxy_temp_path %1$s/temp;
            grpc_read_timeout 300s;
            grpc_send_timeout 300s;
            ssl_certificate %1$s/server.pem;
            ssl_certificate_key %1$s/server.key;
            server {
              listen 127.0.0.1:%2$d ssl http2;
              ssl_client_certificate %1$s/ca.pem;
              ssl_verify_client on;
              location / { grpc_pass grpc://%4$s; }
            }
            server {
              listen 127.0.0.1:%3$d ssl http2;
              location / {
                if ($http_authorization != "Bearer %5$s") { return 401; }
                grpc_pass grpc://%4$s;
              }
            }
          }
          """.formatted(dir, mtlsPort, apiKeyPort, upstream, apiKey));
      this.nginx = new ProcessBuilder("nginx", "-c", dir.resolve("nginx.conf").toString(), "-p", dir.toString())
          .redirectErrorStream(true).redirectOutput(dir.resolve("nginx.out").toFile()).start();
      Await.until(() -> listening(mtlsPort) && listening(apiKeyPort) || !nginx.isAlive(), Duration.ofSeconds(20),
          "nginx to listen");
      if (!nginx.isAlive()) {
        throw new AssertionError("nginx exited: " + Files.readString(dir.resolve("nginx.out")));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The proxy in front of {@code upstream} (host:port); fails with the command that installs nginx if it is missing. */
  public static TlsProxy start(Path dir, String upstream) {
    if (!Files.isExecutable(Path.of("/usr/sbin/nginx"))) {
      throw new AssertionError("this test needs nginx (grpc_pass): run scripts/setup, or apt-get install nginx-light");
    }
    return new TlsProxy(dir, upstream);
  }

  private void makeCertificates() throws IOException {
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
        "-subj", "/CN=kandev test CA", "-keyout", "ca.key", "-out", "ca.pem");
    signed("server", "/CN=" + SERVER_NAME, "subjectAltName=DNS:" + SERVER_NAME, "ca");
    signed("client", "/CN=kandev-worker", "extendedKeyUsage=clientAuth", "ca");
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
        "-subj", "/CN=someone else's CA", "-keyout", "rogue-ca.key", "-out", "rogue-ca.pem");
    signed("rogue-client", "/CN=kandev-worker", "extendedKeyUsage=clientAuth", "rogue-ca");
  }

  /** {@code <name>.key} (PKCS#8) and {@code <name>.pem} signed by {@code <ca>}. */
  private void signed(String name, String subject, String extension, String ca) throws IOException {
    openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", name + ".key");
    openssl("req", "-new", "-key", name + ".key", "-subj", subject, "-out", name + ".csr");
    Files.writeString(dir.resolve(name + ".ext"), extension + "\n");
    openssl("x509", "-req", "-in", name + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key", "-CAcreateserial",
        "-days", "2", "-extfile", name + ".ext", "-out", name + ".pem");
  }

  private void openssl(String... args) throws IOException {
    List<String> command = new java.util.ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new AssertionError(String.join(" ", command) + " failed: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static boolean listening(int port) {
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  public Path file(String name) {
    return dir.resolve(name);
  }

  @Override
  public void close() {
    ProcessStop.gracefully(nginx, Duration.ofSeconds(10));
  }
}
