package dev.kandev.recovery.activities.store;

/** Where the store lives. The password is configuration, never logged. */
public record DatabaseSettings(
    String url, String user, String password, String schema, int maxPoolSize, MigrationLimits migration) {
  public DatabaseSettings {
    password = password == null ? "" : password;
    migration = migration == null ? MigrationLimits.DEFAULT : migration;
  }

  /** With the default {@link MigrationLimits}. */
  public DatabaseSettings(String url, String user, String password, String schema, int maxPoolSize) {
    this(url, user, password, schema, maxPoolSize, MigrationLimits.DEFAULT);
  }

  @Override
  public String toString() {
    return "DatabaseSettings[url=" + url + ", user=" + user + ", schema=" + schema + "]";
  }
}
