package dev.kandev.recovery.worker.config;

import dev.kandev.recovery.activities.redaction.SafeUrl;
import dev.kandev.recovery.activities.store.DatabaseSettings;
import dev.kandev.recovery.activities.store.MigrationLimits;
import dev.kandev.recovery.activities.store.StoreLayout;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code KANDEV_DB_URL}, {@code KANDEV_DB_USER}, {@code KANDEV_DB_PASSWORD}, {@code KANDEV_DB_SCHEMA},
 * {@code KANDEV_DB_POOL_SIZE}, the limits of the schema migrations, and the store layout:
 * {@code KANDEV_STORE_LAYOUT} ({@code mirror} or {@code kandev}) with {@code KANDEV_KANDEV_SCHEMA}
 * (where Kandev's tables are). The URL is JDBC's ({@code jdbc:postgresql://HOST:PORT/DATABASE}) or
 * the form Kandev's Go side uses ({@code postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=…}),
 * which becomes the JDBC URL with its user and password taken apart; anything else is refused here.
 */
final class DatabaseVariables {
  static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/postgres";
  static final String ACCEPTED = "jdbc:postgresql://HOST[:PORT]/DATABASE or postgres://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE";
  private static final Pattern GO_FORM = Pattern.compile("(?i)postgres(ql)?://.*");

  private DatabaseVariables() {}

  static DatabaseSettings read(EnvironmentVariables env) {
    String url = env.text("KANDEV_DB_URL", DEFAULT_URL);
    Optional<String> user = env.text("KANDEV_DB_USER");
    Optional<String> password = Optional.ofNullable(env.verbatim("KANDEV_DB_PASSWORD", null));
    String jdbcUrl = url;
    if (GO_FORM.matcher(url).matches()) {
      URI uri = parse(url);
      jdbcUrl = "jdbc:postgresql://" + uri.getRawAuthority().substring(uri.getRawAuthority().lastIndexOf('@') + 1)
          + (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
          + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
      if (uri.getRawUserInfo() != null) {
        String[] userInfo = uri.getRawUserInfo().split(":", 2);
        user = Optional.of(only("KANDEV_DB_USER", user, decode(userInfo[0])));
        if (userInfo.length == 2) {
          password = Optional.of(only("KANDEV_DB_PASSWORD", password, decode(userInfo[1])));
        }
      }
    } else if (!url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("KANDEV_DB_URL must be " + ACCEPTED + ", got '" + SafeUrl.of(url) + "'");
    }
    return new DatabaseSettings(jdbcUrl, user.orElse("postgres"), password.orElse(""),
        env.text("KANDEV_DB_SCHEMA", "kandev_recovery"), env.atLeast("KANDEV_DB_POOL_SIZE", 1, 10), migration(env),
        StoreLayout.parse(env.text("KANDEV_STORE_LAYOUT", "mirror"),
            env.text("KANDEV_KANDEV_SCHEMA", StoreLayout.DEFAULT_KANDEV_SCHEMA)));
  }

  /** {@code KANDEV_MIGRATION_LOCK_TIMEOUT_SECONDS}, {@code KANDEV_MIGRATION_STATEMENT_TIMEOUT_SECONDS}. */
  private static MigrationLimits migration(EnvironmentVariables env) {
    return new MigrationLimits(
        env.positiveSeconds("KANDEV_MIGRATION_LOCK_TIMEOUT_SECONDS", MigrationLimits.DEFAULT.lockTimeout()),
        env.positiveSeconds("KANDEV_MIGRATION_STATEMENT_TIMEOUT_SECONDS", MigrationLimits.DEFAULT.statementTimeout()));
  }

  private static URI parse(String url) {
    try {
      URI uri = new URI(url);
      if (uri.getHost() == null) {
        throw new URISyntaxException(url, "no single host");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("KANDEV_DB_URL must be " + ACCEPTED + " (one host), got '"
          + SafeUrl.of(url) + "'");
    }
  }

  /** The URL's user or password, unless its variable says otherwise: one place decides. */
  private static String only(String variable, Optional<String> set, String inUrl) {
    if (set.isPresent() && !set.get().equals(inUrl)) {
      throw new IllegalArgumentException("KANDEV_DB_URL and " + variable + " disagree: set it in one of them");
    }
    return inUrl;
  }

  private static String decode(String part) {
    return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
  }
}
