package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.activities.redaction.Redaction;
import dev.kandev.recovery.activities.redaction.SafeUrl;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the store lives: our schema, and in the "kandev" {@code layout} the schema of Kandev's own
 * tables. The password is configuration, never logged; the URL is shown only as {@link #shownUrl}.
 */
public record DatabaseSettings(
    String url, String user, String password, String schema, int maxPoolSize, MigrationLimits migration,
    StoreLayout layout) {
  public DatabaseSettings {
    password = password == null ? "" : password;
    migration = migration == null ? MigrationLimits.DEFAULT : migration;
    layout = layout == null ? StoreLayout.MIRROR : layout;
    if (layout.isKandev() && layout.kandevSchema().equals(schema)) {
      throw new IllegalArgumentException("KANDEV_DB_SCHEMA and KANDEV_KANDEV_SCHEMA must differ in the kandev layout"
          + " (ours holds tables named like Kandev's), both are '" + schema + "'");
    }
  }

  /** Our mirror layout, with the default {@link MigrationLimits}. */
  public DatabaseSettings(String url, String user, String password, String schema, int maxPoolSize) {
    this(url, user, password, schema, maxPoolSize, MigrationLimits.DEFAULT, StoreLayout.MIRROR);
  }

  /** With the default {@link MigrationLimits}. */
  public DatabaseSettings(String url, String user, String password, String schema, int maxPoolSize, StoreLayout layout) {
    this(url, user, password, schema, maxPoolSize, MigrationLimits.DEFAULT, layout);
  }

  /** The URL as a banner, an error or {@code /readyz} shows it: no userinfo, no query values ({@link SafeUrl}). */
  public String shownUrl() {
    return SafeUrl.of(url);
  }

  /**
   * A driver's message as it may be shown: the password, the URL as a whole and its secret parts
   * masked, and any credential of a known shape ({@link Redaction}).
   */
  public String shown(String driverMessage) {
    List<String> secrets = new ArrayList<>(SafeUrl.secretsOf(url));
    secrets.add(password);
    secrets.add(url);
    return Redaction.of(secrets).apply(driverMessage);
  }

  @Override
  public String toString() {
    return "DatabaseSettings[url=" + shownUrl() + ", user=" + user + ", schema=" + schema + ", layout=" + layout + "]";
  }
}
