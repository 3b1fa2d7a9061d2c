package dev.kandev.recovery.activities.credentials;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The GitHub App the {@code github_app} policy mints installation tokens for. The private key PEM
 * is a secret: {@link #toString()} never prints it.
 *
 * @param appId the App's id (the JWT issuer)
 * @param privateKeyPem PKCS#1 ({@code BEGIN RSA PRIVATE KEY}, what GitHub issues) or PKCS#8 PEM
 * @param apiBase REST API base, {@code https://api.github.com} or a GitHub Enterprise
 *     {@code https://host/api/v3}
 * @param requestTimeout timeout of one call to GitHub
 */
public record GitHubAppSettings(String appId, String privateKeyPem, URI apiBase, Duration requestTimeout) {
  public static final URI DEFAULT_API_BASE = URI.create("https://api.github.com");
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  public static final String ENV_APP_ID = "KANDEV_GITHUB_APP_ID";
  public static final String ENV_PRIVATE_KEY_FILE = "KANDEV_GITHUB_APP_PRIVATE_KEY_FILE";
  public static final String ENV_PRIVATE_KEY = "KANDEV_GITHUB_APP_PRIVATE_KEY";
  public static final String ENV_API_BASE = "KANDEV_GITHUB_API_BASE";
  public static final String ENV_TIMEOUT_SECONDS = "KANDEV_GITHUB_API_TIMEOUT_SECONDS";

  public GitHubAppSettings {
    if (appId == null || appId.isBlank()) {
      throw CredentialException.configMissing("GitHub App id (" + ENV_APP_ID + ")");
    }
    if (privateKeyPem == null || privateKeyPem.isBlank()) {
      throw CredentialException.configMissing(
          "GitHub App private key (" + ENV_PRIVATE_KEY_FILE + " or " + ENV_PRIVATE_KEY + ")");
    }
    appId = appId.trim();
    apiBase = apiBase == null ? DEFAULT_API_BASE : stripTrailingSlash(apiBase);
    if ((!"https".equals(apiBase.getScheme()) && !"http".equals(apiBase.getScheme())) || apiBase.getHost() == null
        || apiBase.getUserInfo() != null) {
      throw CredentialException.configInvalid("GitHub API base must be an http(s) URL without user info", null);
    }
    requestTimeout = requestTimeout == null ? DEFAULT_TIMEOUT : requestTimeout;
  }

  public GitHubAppSettings(String appId, String privateKeyPem, URI apiBase) {
    this(appId, privateKeyPem, apiBase, DEFAULT_TIMEOUT);
  }

  /**
   * Settings from the worker's environment, or empty when no App id is configured (the {@code
   * github_app} policy then fails with {@link CredentialException#CONFIG_MISSING}).
   */
  public static Optional<GitHubAppSettings> fromEnvironment(Map<String, String> env) {
    String appId = env.get(ENV_APP_ID);
    if (appId == null || appId.isBlank()) {
      return Optional.empty();
    }
    String pem = env.get(ENV_PRIVATE_KEY);
    String file = env.get(ENV_PRIVATE_KEY_FILE);
    if ((pem == null || pem.isBlank()) && file != null && !file.isBlank()) {
      try {
        pem = Files.readString(Path.of(file.trim()));
      } catch (IOException e) {
        throw CredentialException.configInvalid(
            "cannot read GitHub App private key file " + file.trim() + ": " + e.getClass().getSimpleName(), null);
      }
    }
    String base = env.get(ENV_API_BASE);
    String timeout = env.get(ENV_TIMEOUT_SECONDS);
    URI apiBase;
    Duration requestTimeout;
    try {
      apiBase = base == null || base.isBlank() ? DEFAULT_API_BASE : URI.create(base.trim());
      requestTimeout =
          timeout == null || timeout.isBlank() ? DEFAULT_TIMEOUT : Duration.ofSeconds(Long.parseLong(timeout.trim()));
    } catch (IllegalArgumentException e) {
      throw CredentialException.configInvalid(ENV_API_BASE + " or " + ENV_TIMEOUT_SECONDS + " is malformed", null);
    }
    if (requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw CredentialException.configInvalid(ENV_TIMEOUT_SECONDS + " must be positive", null);
    }
    return Optional.of(new GitHubAppSettings(appId, pem, apiBase, requestTimeout));
  }

  private static URI stripTrailingSlash(URI uri) {
    String s = uri.toString();
    return s.endsWith("/") ? URI.create(s.substring(0, s.length() - 1)) : uri;
  }

  @Override
  public String toString() {
    return "GitHubAppSettings[appId=" + appId + ", privateKeyPem=<redacted>, apiBase=" + apiBase
        + ", requestTimeout=" + requestTimeout + "]";
  }
}
