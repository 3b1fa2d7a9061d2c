package dev.kandev.recovery.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.model.AgentFailureClass;
import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.failure.ApplicationErrorCategory;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The catalogue and docs/contract.md's failure table are the same list, row for row. */
class FailureTypeContractTest {
  private static final String HEADING = "### Failure types";

  @Test
  void theContractTableIsTheCatalogue() throws IOException {
    List<String> expected = Arrays.stream(FailureType.values()).map(FailureTypeContractTest::row).toList();

    assertThat(contractRows())
        .as("docs/contract.md, %s, must read (in this order):%n%s", HEADING, String.join("\n", expected))
        .containsExactlyElementsOf(expected);
  }

  @Test
  void theNamesTheStartersKnowAreInTheCatalogue() {
    // Names published before the catalogue existed (Go starter, histories, docs): they must never go.
    assertThat(Arrays.stream(FailureType.values()).map(FailureType::type)).contains(
        "INVALID_REQUEST", "SESSION_NOT_FOUND", "SESSION_NOT_RESUMABLE", "AGENT_ALREADY_RUNNING", "AGENT_UNKNOWN",
        "RESUME_LOCK_HELD", "RESUME_LOCK_LOST", "SESSION_STATE_SUPERSEDED", "CREDENTIAL_PROVIDER_UNAVAILABLE",
        "AGENT_EXITED_BEFORE_INITIALIZE", "AGENT_SESSION_LOAD_REJECTED", "RUNTIME_UNKNOWN_AGENT",
        "RUNTIME_CACHE_REPAIR_FAILED", "ACTIVITY_TIMEOUT_HEARTBEAT", "ACTIVITY_TIMEOUT_START_TO_CLOSE");
  }

  @Test
  void everyTimeoutTemporalReportsHasItsType() {
    EnumSet<TimeoutType> reported = EnumSet.allOf(TimeoutType.class);
    reported.removeAll(List.of(TimeoutType.TIMEOUT_TYPE_UNSPECIFIED, TimeoutType.UNRECOGNIZED));

    assertThat(reported).allSatisfy(timeout -> assertThat(FailureType.of(FailureType.ofTimeout(timeout))).isPresent());
    assertThat(FailureType.ofTimeout(TimeoutType.TIMEOUT_TYPE_HEARTBEAT)).isEqualTo("ACTIVITY_TIMEOUT_HEARTBEAT");
  }

  @ParameterizedTest
  @EnumSource(FailureType.class)
  void aRaisedFailureIsBenignOfItsTypeAndRetryableExactlyWhenTheTypeIs(FailureType type) {
    ApplicationFailure failure = type.failure("what happened", "detail");

    assertThat(failure.getType()).isEqualTo(type.name());
    assertThat(failure.isNonRetryable()).isEqualTo(!type.retryable());
    assertThat(failure.getCategory()).isEqualTo(ApplicationErrorCategory.BENIGN);
    assertThat(failure.getOriginalMessage()).isEqualTo("what happened");
    assertThat(failure.getDetails().get(String.class)).isEqualTo("detail");
    assertThat(type.is(failure)).isTrue();
  }

  @Test
  void onlyAFewTypesAreRetried() {
    assertThat(Arrays.stream(FailureType.values()).filter(FailureType::retryable)).containsExactlyInAnyOrder(
        FailureType.RESUME_LOCK_HELD, FailureType.CREDENTIAL_PROVIDER_UNAVAILABLE,
        FailureType.ACTIVITY_TIMEOUT_START_TO_CLOSE, FailureType.ACTIVITY_TIMEOUT_HEARTBEAT);
  }

  @Test
  void aFaultsClassNameIsNoCatalogueType() {
    assertThat(FailureType.of("dev.kandev.recovery.activities.store.StoreException")).isEmpty();
    assertThat(FailureType.of(null)).isEmpty();
    assertThat(FailureType.of("SESSION_NOT_FOUND")).contains(FailureType.SESSION_NOT_FOUND);
  }

  @ParameterizedTest
  @EnumSource(AgentFailureClass.class)
  void eachLaunchFailureClassIsTheCatalogueTypeOfItsName(AgentFailureClass failureClass) {
    assertThat(failureClass.failureType().name()).isEqualTo(failureClass.name());
    assertThat(failureClass.type()).isEqualTo(failureClass.name());
  }

  static String row(FailureType type) {
    return "| `" + type.type() + "` | " + (type.retryable() ? "yes" : "no") + " | " + type.meaning() + " |";
  }

  private static List<String> contractRows() throws IOException {
    List<String> lines = Files.readAllLines(repository().resolve("docs/contract.md"), StandardCharsets.UTF_8);
    int start = lines.indexOf(HEADING);
    assertThat(start).as("docs/contract.md has a section '%s'", HEADING).isNotNegative();
    List<String> rows = new ArrayList<>();
    for (String line : lines.subList(start + 1, lines.size())) {
      if (line.startsWith("#")) {
        break;
      }
      if (line.startsWith("| `")) {
        rows.add(line);
      }
    }
    return rows;
  }

  private static Path repository() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("docs/contract.md"))) {
        return dir;
      }
    }
    throw new IllegalStateException("docs/contract.md not found above " + Path.of("").toAbsolutePath());
  }
}
