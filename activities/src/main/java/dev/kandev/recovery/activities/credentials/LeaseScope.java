package dev.kandev.recovery.activities.credentials;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * What a credential lease may be used for: one repository of one task session, identified by its
 * HTTPS host and canonical path {@code /<owner>/<name>}. The compact constructor normalizes (trim,
 * lower-case provider and host, unescape the path, drop a trailing {@code .git} or {@code /}) and
 * validates.
 */
public record LeaseScope(
    String workspaceId,
    String taskId,
    String sessionId,
    String repositoryId,
    String host,
    String path,
    String provider) {
  public static final String GITHUB = "github";

  public LeaseScope {
    workspaceId = required("workspaceId", workspaceId);
    taskId = required("taskId", taskId);
    sessionId = required("sessionId", sessionId);
    repositoryId = required("repositoryId", repositoryId);
    provider = required("provider", provider).toLowerCase(Locale.ROOT);
    host = normalizeHost(host);
    if (path == null || !path.trim().startsWith("/")) {
      throw new IllegalArgumentException("git credential path must start with '/'");
    }
    path = canonicalPath(path);
    if (!GITHUB.equals(provider)) {
      throw new IllegalArgumentException("unsupported git credential provider '" + provider + "'");
    }
  }

  /** A GitHub scope for repository {@code owner/name} on {@code host}. */
  public static LeaseScope github(
      String workspaceId, String taskId, String sessionId, String repositoryId, String host, String ownerAndName) {
    return new LeaseScope(workspaceId, taskId, sessionId, repositoryId, host, "/" + ownerAndName, GITHUB);
  }

  /** {@code owner/name}. */
  public String repository() {
    return path.substring(1);
  }

  public String owner() {
    return path.substring(1, path.indexOf('/', 1));
  }

  public String name() {
    return path.substring(path.indexOf('/', 1) + 1);
  }

  /** Whether a helper request for {@code host} and {@code path} (as git sends them) is this scope. */
  public boolean matches(String requestHost, String requestPath) {
    return host.equals(normalizeHost(requestHost)) && path.equalsIgnoreCase(canonicalPath(requestPath));
  }

  public static String normalizeHost(String host) {
    String h = required("host", host).toLowerCase(Locale.ROOT);
    if (h.matches(".*[/@?#\\s].*")) {
      throw new IllegalArgumentException("git credential host must not contain '/', '@', '?', '#' or spaces");
    }
    return h;
  }

  /**
   * {@code owner/repo.git} (how git sends it), {@code /owner/repo/} and {@code /owner/repo} all
   * become {@code /owner/repo}.
   */
  public static String canonicalPath(String path) {
    String p = required("path", path);
    if (p.contains("?") || p.contains("#")) {
      throw new IllegalArgumentException("git credential path must not contain '?' or '#'");
    }
    p = URLDecoder.decode(p.replace("+", "%2B"), StandardCharsets.UTF_8);
    if (!p.startsWith("/")) {
      p = "/" + p;
    }
    while (p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    if (p.endsWith(".git")) {
      p = p.substring(0, p.length() - 4);
    }
    String[] parts = p.substring(1).split("/", -1);
    if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank() || p.contains("..")
        || p.matches(".*[\\s?#].*")) {
      throw new IllegalArgumentException("git credential path must be /<owner>/<repository>");
    }
    return p;
  }

  private static String required(String name, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("git credential scope needs " + name);
    }
    return value.trim();
  }
}
