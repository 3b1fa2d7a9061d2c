package dev.kandev.recovery.worker.events;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Where Kandev's NATS bus is: {@code KANDEV_NATS_URL} as Kandev reads it (one URL, or several
 * separated by commas; {@code nats://}, {@code tls://}, {@code ws://} or {@code wss://}), which may
 * carry a user and password or a token, and {@code KANDEV_NATS_CLIENTID}, the connection's name.
 * The URL is never printed as given: {@link #display()} drops the credentials.
 */
public record KandevBusSettings(String url, String clientId) {
  public static final String DEFAULT_CLIENT_ID = "kandev-recovery";
  private static final Pattern SCHEME = Pattern.compile("(?i)nats|tls|ws|wss");

  public KandevBusSettings {
    if (servers(url).isEmpty()) {
      throw new IllegalArgumentException("KANDEV_NATS_URL names no server");
    }
    for (String server : servers(url)) {
      URI uri = uri(server);
      if (uri.getScheme() == null || !SCHEME.matcher(uri.getScheme()).matches() || uri.getHost() == null) {
        throw new IllegalArgumentException("KANDEV_NATS_URL must be nats://HOST[:PORT] (or tls://, ws://, wss://;"
            + " several separated by commas), got '" + withoutUserInfo(server) + "'");
      }
    }
    if (clientId.isBlank()) {
      throw new IllegalArgumentException("KANDEV_NATS_CLIENTID must not be empty");
    }
  }

  /** The bus of {@code url} (empty: Kandev runs its in-process bus, and we publish nothing). */
  public static Optional<KandevBusSettings> of(Optional<String> url, Optional<String> clientId) {
    return url.map(u -> new KandevBusSettings(u, clientId.orElse(DEFAULT_CLIENT_ID)));
  }

  /** The servers of {@link #url}, as jnats takes them. */
  public List<String> serverUrls() {
    return servers(url);
  }

  /** The URL(s) without user, password or token: what may be printed. */
  public String display() {
    return servers(url).stream().map(KandevBusSettings::withoutUserInfo).collect(Collectors.joining(","));
  }

  /** {@code text} (a message of the client library, say) with any credentials of the URL replaced. */
  public String scrub(String text) {
    if (text == null) {
      return "";
    }
    String scrubbed = text;
    for (String server : servers(url)) {
      scrubbed = scrubbed.replace(server, withoutUserInfo(server));
      int at = server.indexOf('@');
      int scheme = server.indexOf("://");
      if (at > scheme + 3 && scheme >= 0) {
        scrubbed = scrubbed.replace(server.substring(scheme + 3, at), "***");
      }
    }
    return scrubbed;
  }

  /** Never the URL as given: it may carry credentials. */
  @Override
  public String toString() {
    return "KandevBusSettings[url=" + display() + ", clientId=" + clientId + "]";
  }

  private static List<String> servers(String url) {
    return Arrays.stream(url.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  private static URI uri(String server) {
    try {
      return new URI(server);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("KANDEV_NATS_URL is no URL: '" + withoutUserInfo(server) + "'");
    }
  }

  private static String withoutUserInfo(String server) {
    int scheme = server.indexOf("://");
    int at = server.lastIndexOf('@');
    if (at < 0) {
      return server;
    }
    return (scheme >= 0 && scheme < at ? server.substring(0, scheme + 3) : "") + server.substring(at + 1);
  }
}
