package dev.kandev.recovery.worker.config;

import static dev.kandev.recovery.activities.credentials.github.GitHubAppSettings.ENV_API_BASE;
import static dev.kandev.recovery.activities.credentials.github.GitHubAppSettings.ENV_APP_ID;
import static dev.kandev.recovery.activities.credentials.github.GitHubAppSettings.ENV_PRIVATE_KEY;
import static dev.kandev.recovery.activities.credentials.github.GitHubAppSettings.ENV_PRIVATE_KEY_FILE;
import static dev.kandev.recovery.activities.credentials.github.GitHubAppSettings.ENV_TIMEOUT_SECONDS;

import dev.kandev.recovery.activities.credentials.github.GitHubAppSettings;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The GitHub App of {@link Settings}: empty when no App id is set (the {@code github_app} policy
 * then fails with {@code CREDENTIAL_CONFIG_MISSING}); an App id without a usable key or API base
 * is refused at start. The key is a secret and the API base may hold one: their errors never show them.
 */
public final class GitHubAppVariables {
  private GitHubAppVariables() {}

  static Optional<GitHubAppSettings> read(EnvironmentVariables env) {
    Optional<String> appId = env.text(ENV_APP_ID);
    if (appId.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new GitHubAppSettings(appId.get(), privateKey(env), apiBase(env),
        env.positiveSeconds(ENV_TIMEOUT_SECONDS, GitHubAppSettings.DEFAULT_TIMEOUT)));
  }

  /** The PEM of {@code KANDEV_GITHUB_APP_PRIVATE_KEY}, else of the file {@code KANDEV_GITHUB_APP_PRIVATE_KEY_FILE}. */
  private static String privateKey(EnvironmentVariables env) {
    Optional<String> pem = env.text(ENV_PRIVATE_KEY);
    if (pem.isPresent()) {
      return pem.get();
    }
    String file = env.text(ENV_PRIVATE_KEY_FILE).orElseThrow(() -> new IllegalArgumentException(
        ENV_APP_ID + " is set, so " + ENV_PRIVATE_KEY_FILE + " or " + ENV_PRIVATE_KEY + " must be set too (the App's PEM key)"));
    String read;
    try {
      read = Files.readString(Path.of(file));
    } catch (IOException | RuntimeException e) {
      read = "";
    }
    if (read.isBlank()) {
      throw new IllegalArgumentException(
          ENV_PRIVATE_KEY_FILE + " must name a readable file holding the App's PEM key, got '" + file + "'");
    }
    return read;
  }

  private static URI apiBase(EnvironmentVariables env) {
    Optional<String> value = env.text(ENV_API_BASE);
    if (value.isEmpty()) {
      return GitHubAppSettings.DEFAULT_API_BASE;
    }
    String expected = " must be an http(s) URL without user info such as https://api.github.com or https://host/api/v3";
    URI uri;
    try {
      uri = new URI(value.get());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(ENV_API_BASE + expected + ", got a malformed URL");
    }
    if (uri.getRawUserInfo() != null) {
      throw new IllegalArgumentException(ENV_API_BASE + expected + ", got one with user info (not shown)");
    }
    if (!("https".equals(uri.getScheme()) || "http".equals(uri.getScheme())) || uri.getHost() == null) {
      throw new IllegalArgumentException(ENV_API_BASE + expected + ", got '" + value.get() + "'");
    }
    return uri;
  }
}
