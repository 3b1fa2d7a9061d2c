package dev.kandev.recovery.worker.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.worker.config.BuildInfo;
import org.junit.jupiter.api.Test;

/** {@code kandev_build_info} keeps its name (Micrometer would strip a gauge's {@code _info}) and says which build runs. */
class BuildInfoMetricTest {
  @Test
  void theScrapeShowsTheReleaseAndTheDeploymentVersion() {
    try (Observability observability = Observability.create()) {
      observability.buildInfo(BuildInfo.version(), "kandev-recovery", "2.0.0");

      assertThat(observability.scrape()).contains("kandev_build_info{build_id=\"2.0.0\",deployment=\"kandev-recovery\",version=\""
          + BuildInfo.version() + "\"} 1");
    }
    assertThat(BuildInfo.version()).matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
  }
}
