package dev.kandev.recovery.activities.store;

/**
 * Where the store lives: our schema, and in the "kandev" {@code layout} the schema of Kandev's own
 * tables. The password is configuration, never logged.
 */
public record DatabaseSettings(String url, String user, String password, String schema, int maxPoolSize, StoreLayout layout) {
  public DatabaseSettings {
    password = password == null ? "" : password;
    layout = layout == null ? StoreLayout.MIRROR : layout;
    if (layout.isKandev() && layout.kandevSchema().equals(schema)) {
      throw new IllegalArgumentException("KANDEV_DB_SCHEMA and KANDEV_KANDEV_SCHEMA must differ in the kandev layout"
          + " (ours holds tables named like Kandev's), both are '" + schema + "'");
    }
  }

  /** Our mirror layout. */
  public DatabaseSettings(String url, String user, String password, String schema, int maxPoolSize) {
    this(url, user, password, schema, maxPoolSize, StoreLayout.MIRROR);
  }

  @Override
  public String toString() {
    return "DatabaseSettings[url=" + url + ", user=" + user + ", schema=" + schema + ", layout=" + layout + "]";
  }
}
