package dev.kandev.recovery.worker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Secrets read from files ({@code KANDEV_DB_PASSWORD_FILE}, {@code TEMPORAL_API_KEY_FILE}), as Docker secrets give them. */
class SecretFilesTest {
  @TempDir Path dir;

  @Test
  void theDatabasePasswordAndTheTemporalApiKeyComeFromTheirFiles() throws Exception {
    Path password = Files.writeString(dir.resolve("db-password"), " pass with spaces \n");
    Path apiKey = Files.writeString(dir.resolve("api-key"), "key-123");

    Settings settings = Settings.fromEnvironment(Map.of(
        "KANDEV_DB_PASSWORD_FILE", password.toString(), "TEMPORAL_API_KEY_FILE", apiKey.toString()));

    assertThat(settings.database().password()).isEqualTo(" pass with spaces ");
    assertThat(settings.temporalClient().hasApiKey()).isTrue();
    assertThat(settings.toString()).doesNotContain("pass with spaces", "key-123");
  }

  @Test
  void aMissingFileOrBothFormsAreBadSettingsNamingTheVariable() throws Exception {
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_DB_PASSWORD_FILE", dir.resolve("nope").toString())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("KANDEV_DB_PASSWORD_FILE must name a readable file, got '" + dir.resolve("nope") + "'");
    Path password = Files.writeString(dir.resolve("db-password"), "secret");
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of(
            "KANDEV_DB_PASSWORD_FILE", password.toString(), "KANDEV_DB_PASSWORD", "other")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("set KANDEV_DB_PASSWORD or KANDEV_DB_PASSWORD_FILE, not both");
  }

  @Test
  void withoutAFileVariableTheEnvironmentIsUsedAsItIs() {
    Map<String, String> env = Map.of("KANDEV_DB_PASSWORD", "plain");
    assertThat(SecretFiles.resolved(env)).isSameAs(env);
  }
}
