package dev.kandev.recovery.worker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerVersioningTest {
  @Test
  void offByDefaultWithTheReleaseAsBuildId() {
    WorkerVersioning versioning = Settings.fromEnvironment(Map.of()).versioning();

    assertThat(versioning).isEqualTo(new WorkerVersioning(false, "kandev-recovery", BuildInfo.version()));
    assertThat(versioning.describe()).startsWith("off: unversioned worker, build id " + BuildInfo.version());
  }

  @Test
  void theDeploymentAndBuildIdAreSettings() {
    WorkerVersioning versioning = Settings.fromEnvironment(Map.of("KANDEV_WORKER_VERSIONING", "true",
        "KANDEV_DEPLOYMENT_NAME", "kandev-prod", "KANDEV_BUILD_ID", "0.2.0+build.7")).versioning();

    assertThat(versioning).isEqualTo(new WorkerVersioning(true, "kandev-prod", "0.2.0+build.7"));
    assertThat(versioning.describe()).startsWith("on: deployment kandev-prod, build id 0.2.0+build.7");
    assertThat(versioning.off().enabled()).isFalse();
  }

  @Test
  void aBadValueNamesTheVariable() {
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_DEPLOYMENT_NAME", "kandev.prod")))
        .hasMessageStartingWith("KANDEV_DEPLOYMENT_NAME must be 1 to 200 letters, digits, '_' or '-', got 'kandev.prod'");
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_BUILD_ID", "0.2 beta")))
        .hasMessageStartingWith("KANDEV_BUILD_ID must be");
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_WORKER_VERSIONING", "yes")))
        .hasMessage("KANDEV_WORKER_VERSIONING must be true or false, got 'yes'");
  }
}
