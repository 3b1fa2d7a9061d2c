package dev.kandev.recovery.activities.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.kandev.recovery.activities.http.HttpReplies;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.SecureRandom;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Plays GitHub's {@code POST /app/installations/{id}/access_tokens} on loopback: verifies the
 * App JWT's RS256 signature against the App's public key, its issuer and iat/exp window, the
 * installation id and that the requested repositories and permissions are within what the
 * installation grants; counts calls; can be told to fail or be slow.
 */
public final class FakeGitHubServer implements AutoCloseable {
  /** One accepted token request. */
  public record TokenRequest(long installationId, List<String> repositories, Map<String, String> permissions, String token) {
    @Override
    public String toString() {
      return "TokenRequest[" + installationId + ", " + repositories + ", " + permissions + "]";
    }
  }

  private static final Pattern TOKEN_PATH = Pattern.compile("/app/installations/(\\d+)/access_tokens");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final RSAPublicKey appPublicKey;
  private final String appId;
  /** The App's installations; each grants the same repositories and permissions. */
  private final Set<Long> installationIds = new CopyOnWriteArraySet<>();
  private final Set<String> installedRepositories;
  private final Map<String, String> grantedPermissions;
  private final AtomicInteger calls = new AtomicInteger();
  private final List<TokenRequest> issued = new CopyOnWriteArrayList<>();
  private final List<String> rejections = new CopyOnWriteArrayList<>();
  private final List<String> jwts = new CopyOnWriteArrayList<>();
  private final SecureRandom random = new SecureRandom();
  private volatile int failStatus;
  private volatile int failTimes;
  private volatile Duration delay = Duration.ZERO;
  private volatile Duration tokenLifetime = Duration.ofHours(1);
  private volatile String rawSuccessBody;

  public FakeGitHubServer(
      RSAPublicKey appPublicKey, String appId, long installationId, Set<String> installedRepositories,
      Map<String, String> grantedPermissions) {
    this.appPublicKey = appPublicKey;
    this.appId = appId;
    this.installationIds.add(installationId);
    this.installedRepositories = Set.copyOf(installedRepositories);
    this.grantedPermissions = Map.copyOf(grantedPermissions);
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    server.createContext("/", this::handle);
    server.setExecutor(Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "fake-github");
      t.setDaemon(true);
      return t;
    }));
    server.start();
  }

  public URI apiBase() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** The App is also installed as {@code installationId} (e.g. in an executor's own organisation). */
  public FakeGitHubServer alsoInstalledAs(long installationId) {
    installationIds.add(installationId);
    return this;
  }

  /** The next {@code times} requests are answered with {@code status} and a GitHub error body. */
  public FakeGitHubServer failNext(int status, int times) {
    this.failStatus = status;
    this.failTimes = times;
    return this;
  }

  public FakeGitHubServer delay(Duration delay) {
    this.delay = delay;
    return this;
  }

  public FakeGitHubServer tokenLifetime(Duration lifetime) {
    this.tokenLifetime = lifetime;
    return this;
  }

  /** Answers 201 with exactly this body (to test malformed responses). */
  public FakeGitHubServer successBody(String body) {
    this.rawSuccessBody = body;
    return this;
  }

  /** All requests received on the token endpoint, accepted or not. */
  public int calls() {
    return calls.get();
  }

  public List<TokenRequest> issued() {
    return List.copyOf(issued);
  }

  /** Every bearer JWT received (secrets, for tests that look for leaks). */
  public List<String> receivedJwts() {
    return List.copyOf(jwts);
  }

  /** Why requests were refused (bad JWT, scope beyond the installation, ...). */
  public List<String> rejections() {
    return List.copyOf(rejections);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      Matcher m = TOKEN_PATH.matcher(exchange.getRequestURI().getPath());
      if (!"POST".equals(exchange.getRequestMethod()) || !m.matches()) {
        reply(exchange, 404, "Not Found");
        return;
      }
      calls.incrementAndGet();
      if (!delay.isZero()) {
        Thread.sleep(delay.toMillis());
      }
      if (failTimes > 0) {
        failTimes--;
        reply(exchange, failStatus, "injected failure " + failStatus);
        return;
      }
      String jwtProblem = verifyJwt(exchange.getRequestHeaders().getFirst("Authorization"));
      if (jwtProblem != null) {
        rejections.add(jwtProblem);
        reply(exchange, 401, "A JSON web token could not be decoded");
        return;
      }
      long requested = Long.parseLong(m.group(1));
      if (!installationIds.contains(requested)) {
        rejections.add("unknown installation " + requested);
        reply(exchange, 404, "Not Found");
        return;
      }
      JsonNode body = JSON.readTree(exchange.getRequestBody());
      List<String> repositories = new ArrayList<>();
      body.path("repositories").forEach(r -> repositories.add(r.asText()));
      Map<String, String> permissions = new HashMap<>();
      body.path("permissions").fields().forEachRemaining(e -> permissions.put(e.getKey(), e.getValue().asText()));
      String scopeProblem = verifyScope(repositories, permissions);
      if (scopeProblem != null) {
        rejections.add(scopeProblem);
        reply(exchange, 422, scopeProblem);
        return;
      }
      if (rawSuccessBody != null) {
        send(exchange, 201, rawSuccessBody);
        return;
      }
      byte[] bytes = new byte[20];
      random.nextBytes(bytes);
      String token = "ghs_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
      issued.add(new TokenRequest(requested, repositories, permissions, token));
      ObjectNode answer = JSON.createObjectNode();
      answer.put("token", token);
      answer.put("expires_at", Instant.now().plus(tokenLifetime).toString());
      answer.set("permissions", JSON.valueToTree(permissions));
      answer.put("repository_selection", "selected");
      send(exchange, 201, answer.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      rejections.add("fake failed: " + e);
      reply(exchange, 500, "fake failed");
    }
  }

  private String verifyJwt(String authorization) {
    if (authorization == null || !authorization.startsWith("Bearer ")) {
      return "no bearer JWT";
    }
    jwts.add(authorization.substring(7));
    try {
      SignedJWT jwt = SignedJWT.parse(authorization.substring(7));
      if (!JWSAlgorithm.RS256.equals(jwt.getHeader().getAlgorithm())) {
        return "JWT algorithm " + jwt.getHeader().getAlgorithm();
      }
      if (!jwt.verify(new RSASSAVerifier(appPublicKey))) {
        return "JWT signature does not verify with the App's public key";
      }
      JWTClaimsSet claims = jwt.getJWTClaimsSet();
      Instant now = Instant.now();
      if (!appId.equals(claims.getIssuer())) {
        return "JWT issuer " + claims.getIssuer();
      }
      if (claims.getIssueTime() == null || claims.getExpirationTime() == null) {
        return "JWT lacks iat or exp";
      }
      Instant iat = claims.getIssueTime().toInstant();
      Instant exp = claims.getExpirationTime().toInstant();
      if (iat.isAfter(now.plusSeconds(5)) || iat.isBefore(now.minusSeconds(120))) {
        return "JWT iat outside the accepted window";
      }
      if (!exp.isAfter(now) || Duration.between(iat, exp).compareTo(Duration.ofMinutes(10)) > 0) {
        return "JWT exp expired or more than 10 minutes after iat";
      }
      return null;
    } catch (java.text.ParseException | com.nimbusds.jose.JOSEException e) {
      return "JWT unreadable: " + e.getMessage();
    }
  }

  private String verifyScope(List<String> repositories, Map<String, String> permissions) {
    if (repositories.isEmpty() || !installedRepositories.containsAll(repositories)) {
      return "There is at least one repository that does not exist or is not accessible to the parent installation.";
    }
    for (Map.Entry<String, String> p : permissions.entrySet()) {
      String granted = grantedPermissions.get(p.getKey());
      if (granted == null || "read".equals(granted) && "write".equals(p.getValue())) {
        return "The permissions requested are not granted to this installation.";
      }
    }
    return null;
  }

  private static void reply(HttpExchange exchange, int status, String message) throws IOException {
    ObjectNode error = JSON.createObjectNode();
    error.put("message", message);
    error.put("documentation_url", "https://docs.github.com/rest");
    send(exchange, status, error.toString());
  }

  private static void send(HttpExchange exchange, int status, String body) throws IOException {
    HttpReplies.reply(exchange, status, "application/json; charset=utf-8", body);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
