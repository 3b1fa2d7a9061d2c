package dev.kandev.recovery.activities.credentials.github;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kandev.recovery.activities.credentials.CredentialException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mints GitHub App installation tokens scoped to one repository and a permission subset
 * ({@code POST {apiBase}/app/installations/{id}/access_tokens}) and caches each until {@link
 * #REFRESH_BEFORE_EXPIRY} before its {@code expires_at}.
 */
final class GitHubInstallationTokens {
  static final Duration REFRESH_BEFORE_EXPIRY = Duration.ofMinutes(5);
  private static final Logger log = LoggerFactory.getLogger(GitHubInstallationTokens.class);

  private record Key(long installationId, String owner, String repository, Map<String, String> permissions) {}

  private final GitHubAppSettings settings;
  private final GitHubAppJwtSigner signer;
  private final HttpClient http;
  private final ObjectMapper json;
  private final Clock clock;
  private final Map<Key, InstallationToken> cache = new ConcurrentHashMap<>();
  private final Map<Key, Object> locks = new ConcurrentHashMap<>();

  GitHubInstallationTokens(GitHubAppSettings settings, ObjectMapper json, Clock clock) {
    this.settings = settings;
    try {
      this.signer = new GitHubAppJwtSigner(settings.appId(), RsaPrivateKeys.parse(settings.privateKeyPem()), clock);
    } catch (IllegalArgumentException e) {
      // e.g. a key shorter than RS256's 2048-bit minimum
      throw CredentialException.configInvalid("GitHub App private key cannot sign RS256 (" + e.getMessage() + ")", null);
    }
    this.http = HttpClient.newBuilder().connectTimeout(settings.requestTimeout()).build();
    this.json = json;
    this.clock = clock;
  }

  /** A cached or freshly minted token for {@code owner/repository} with {@code permissions}. */
  InstallationToken token(long installationId, String owner, String repository, Map<String, String> permissions) {
    Key key = new Key(installationId, owner, repository, Map.copyOf(permissions));
    InstallationToken cached = cache.get(key);
    if (isFresh(cached)) {
      return cached;
    }
    synchronized (locks.computeIfAbsent(key, k -> new Object())) {
      cached = cache.get(key);
      if (isFresh(cached)) {
        return cached;
      }
      InstallationToken minted = mint(key);
      cache.values().removeIf(t -> !isFresh(t));
      cache.put(key, minted);
      return minted;
    }
  }

  private boolean isFresh(InstallationToken token) {
    return token != null && clock.instant().isBefore(token.expiresAt().minus(REFRESH_BEFORE_EXPIRY));
  }

  private InstallationToken mint(Key key) {
    URI uri = URI.create(settings.apiBase() + "/app/installations/" + key.installationId() + "/access_tokens");
    ObjectNode body = json.createObjectNode();
    body.putArray("repositories").add(key.repository());
    ObjectNode perms = body.putObject("permissions");
    key.permissions().forEach(perms::put);
    HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(settings.requestTimeout())
            .header("Accept", "application/vnd.github+json")
            .header("X-GitHub-Api-Version", "2022-11-28")
            .header("Authorization", "Bearer " + signer.sign())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    String what = "GitHub installation token for " + key.owner() + "/" + key.repository()
        + " (installation " + key.installationId() + ")";
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (HttpTimeoutException e) {
      throw CredentialException.providerUnavailable(what + ": GitHub timed out after " + settings.requestTimeout(), null);
    } catch (IOException e) {
      throw CredentialException.providerUnavailable(what + ": GitHub unreachable (" + e.getClass().getSimpleName() + ")", null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw CredentialException.providerUnavailable(what + ": interrupted", null);
    }
    int status = response.statusCode();
    if (status == 201 || status == 200) {
      InstallationToken token = parse(what, response.body());
      log.info("minted {} valid until {}", what, token.expiresAt());
      return token;
    }
    String reason = what + ": GitHub answered " + status + githubMessage(response.body());
    if (status == 429 || status >= 500 || (status == 403 && isRateLimit(response))) {
      throw CredentialException.providerUnavailable(reason, null);
    }
    throw CredentialException.providerRejected(reason);
  }

  private static boolean isRateLimit(HttpResponse<String> response) {
    return response.headers().firstValue("x-ratelimit-remaining").map("0"::equals).orElse(false)
        || response.headers().firstValue("retry-after").isPresent();
  }

  private InstallationToken parse(String what, String body) {
    try {
      JsonNode node = json.readTree(body);
      String token = node.path("token").asText("");
      String expiresAt = node.path("expires_at").asText("");
      if (token.isEmpty() || expiresAt.isEmpty()) {
        throw CredentialException.providerUnavailable(what + ": GitHub response lacks token or expires_at", null);
      }
      return new InstallationToken(token, Instant.parse(expiresAt));
    } catch (IOException | DateTimeParseException e) {
      throw CredentialException.providerUnavailable(what + ": GitHub response is malformed (" + e.getClass().getSimpleName() + ")", null);
    }
  }

  /** GitHub's non-secret error message, shortened, for the failure message. */
  private String githubMessage(String body) {
    try {
      String message = json.readTree(body).path("message").asText("");
      if (message.isEmpty()) {
        return "";
      }
      message = message.replaceAll("[\\p{Cntrl}]", " ");
      return ": " + (message.length() > 200 ? message.substring(0, 200) + "…" : message);
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }
}
