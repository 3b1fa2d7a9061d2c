package dev.kandev.recovery.workflows.resume;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The histories the worker replays at start to warm its workflow code (WarmUpReplays) ran today's
 * branch of the resume: an older one would warm code no new resume runs. When a change adds a
 * version, re-record and refresh them (docs/development.md, "Replay histories").
 */
class WarmUpHistoriesTest {
  private static final Path BUNDLED = Path.of("src/main/resources/dev/kandev/recovery/workflows/warm-up");

  @Test
  void theBundledWarmUpHistoriesRunTheNewestVersionOfTheResume() throws IOException {
    List<Path> histories;
    try (Stream<Path> files = Files.list(BUNDLED)) {
      histories = files.filter(file -> file.toString().endsWith(".json")).sorted().toList();
    }
    assertThat(histories).as("bundled warm-up histories in %s", BUNDLED).isNotEmpty();
    for (Path history : histories) {
      assertThat(versions(Files.readString(history))).as("the version markers of %s", history.getFileName())
          .isEqualTo(Map.of(ResumeChanges.FEWER_EVENTS, ResumeChanges.ONE_UPSERT));
    }
  }

  /** Each {@code Workflow.getVersion} marker of the history: its change id and the version recorded. */
  private static Map<String, Integer> versions(String json) {
    return WorkflowExecutionHistory.fromJson(json).getEvents().stream()
        .filter(VersionMarkers::isVersionMarker)
        .collect(Collectors.toMap(
            marker -> VersionMarkers.detail(marker, "changeId", String.class),
            marker -> VersionMarkers.detail(marker, "version", Integer.class)));
  }
}
