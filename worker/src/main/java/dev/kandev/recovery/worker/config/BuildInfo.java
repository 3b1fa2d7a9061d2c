package dev.kandev.recovery.worker.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The release this jar is: its Maven version, written into {@code kandev-recovery-build.properties} at build time. */
public final class BuildInfo {
  private static final String RESOURCE = "/kandev-recovery-build.properties";
  private static final String VERSION = load();

  private BuildInfo() {}

  /** The project's version, e.g. {@code 0.2.0} or {@code 0.3.0-SNAPSHOT}. */
  public static String version() {
    return VERSION;
  }

  private static String load() {
    try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the classpath: build the jar with Maven");
      }
      Properties properties = new Properties();
      properties.load(in);
      String version = properties.getProperty("version", "");
      if (version.isBlank() || version.startsWith("${")) {
        throw new IllegalStateException(RESOURCE + " has no version (was it filtered by Maven?)");
      }
      return version.trim();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
