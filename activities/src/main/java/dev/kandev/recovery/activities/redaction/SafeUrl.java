package dev.kandev.recovery.activities.redaction;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The one way a configured URL (a JDBC URL, Kandev's {@code postgres://} form) is shown in a banner,
 * an error, a log or {@code /readyz}: scheme, hosts, ports and path as they are; the userinfo and
 * every query value replaced by {@value Redaction#MASK} (the parameter names stay, they say what was
 * set). Works on text that is no valid URI too (JDBC's several hosts, a password with a
 * {@code /} or {@code ?} in it): what it cannot place is masked, never shown.
 */
public final class SafeUrl {
  private static final Pattern SECRET_NAME = Pattern.compile("(?i)password|passwd|pwd|secret|token|key|credential");

  private SafeUrl() {}

  /** {@code url} without its userinfo and query values; null as {@code (none)}. */
  public static String of(String url) {
    if (url == null) {
      return "(none)";
    }
    int slashes = url.indexOf("//");
    int authority = slashes < 0 ? 0 : slashes + 2;
    int at = url.lastIndexOf('@');
    if (at < authority) {
      return hostAndAfter(url);
    }
    // Everything up to the last '@' is userinfo: a password may hold '/', '?' or '#' unencoded. If
    // what is masked held a '?' or '#', the rest may be query or fragment: it is masked as such.
    String masked = url.substring(authority, at);
    String rest = url.substring(at + 1);
    String shownRest = masked.contains("#") ? Redaction.MASK
        : masked.contains("?") ? maskValues(rest.split("#", 2)[0]) + (rest.contains("#") ? "#" + Redaction.MASK : "")
        : hostAndAfter(rest);
    return url.substring(0, authority) + Redaction.MASK + "@" + shownRest;
  }

  /** Text without userinfo: as it is up to its query, whose values are masked, and its fragment, masked whole. */
  private static String hostAndAfter(String text) {
    String rest = text;
    String fragment = "";
    int hash = rest.indexOf('#');
    if (hash >= 0) {
      fragment = "#" + Redaction.MASK;
      rest = rest.substring(0, hash);
    }
    int question = rest.indexOf('?');
    return question < 0 ? rest + fragment
        : rest.substring(0, question) + "?" + maskValues(rest.substring(question + 1)) + fragment;
  }

  /**
   * What of {@code url} is secret, for masking where a driver's message might repeat it: the
   * password of its userinfo and the values of query parameters whose names say secret.
   */
  public static List<String> secretsOf(String url) {
    List<String> secrets = new ArrayList<>();
    if (url == null) {
      return secrets;
    }
    int slashes = url.indexOf("//");
    int at = url.lastIndexOf('@');
    if (slashes >= 0 && at > slashes) {
      String userInfo = url.substring(slashes + 2, at);
      int colon = userInfo.indexOf(':');
      if (colon >= 0) {
        String password = userInfo.substring(colon + 1);
        secrets.add(password);
        try {
          secrets.add(URLDecoder.decode(password.replace("+", "%2B"), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException notEncoded) {
          // used as it is
        }
      }
    }
    int question = url.indexOf('?');
    if (question >= 0) {
      for (String part : url.substring(question + 1).split("[&#]")) {
        int equals = part.indexOf('=');
        if (equals > 0 && SECRET_NAME.matcher(part.substring(0, equals)).find()) {
          secrets.add(part.substring(equals + 1));
        }
      }
    }
    return secrets;
  }

  /** {@code a=1&b=2} → {@code a=***&b=***}; a part without {@code =} is masked whole. */
  private static String maskValues(String query) {
    if (query.isEmpty()) {
      return query;
    }
    return Arrays.stream(query.split("&", -1))
        .map(part -> part.isEmpty() ? part
            : part.contains("=") ? part.substring(0, part.indexOf('=')) + "=" + Redaction.MASK : Redaction.MASK)
        .collect(Collectors.joining("&"));
  }
}
