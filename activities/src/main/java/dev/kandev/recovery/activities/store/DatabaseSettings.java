package dev.kandev.recovery.activities.store;

/** Where the store lives. The password is configuration, never logged. */
public record DatabaseSettings(String url, String user, String password, String schema, int maxPoolSize) {
  public DatabaseSettings {
    password = password == null ? "" : password;
  }

  @Override
  public String toString() {
    return "DatabaseSettings[url=" + url + ", user=" + user + ", schema=" + schema + "]";
  }
}
