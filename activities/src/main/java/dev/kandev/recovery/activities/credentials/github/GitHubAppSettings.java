package dev.kandev.recovery.activities.credentials.github;

import dev.kandev.recovery.activities.credentials.CredentialException;
import java.net.URI;
import java.time.Duration;

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

  // The variables the worker's settings read these from (named in CONFIG_MISSING messages too).
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
