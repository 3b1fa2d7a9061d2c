package dev.kandev.recovery.worker.observability;

import dev.kandev.recovery.activities.redaction.Redaction;
import dev.kandev.recovery.activities.store.DatabaseSettings;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * {@code /readyz}: PostgreSQL and Temporal each answer within a few seconds. What it says of a store
 * that does not is its URL as {@link DatabaseSettings#shownUrl} and the driver's message as {@link
 * DatabaseSettings#shown}: the endpoint has no authentication.
 */
public record Readiness(DataSource database, DatabaseSettings store, WorkflowServiceStubs temporal, String temporalAddress) {
  private static final long WITHIN_SECONDS = 3;

  /** What does not answer now; empty when ready. */
  public List<String> problems() {
    CompletableFuture<String> postgres = CompletableFuture.supplyAsync(this::postgresProblem);
    List<String> problems = new ArrayList<>();
    String temporalProblem = temporalProblem();
    try {
      String postgresProblem = postgres.get(WITHIN_SECONDS + 1, TimeUnit.SECONDS);
      if (postgresProblem != null) {
        problems.add(postgresProblem);
      }
    } catch (Exception e) {
      problems.add("PostgreSQL at " + store.shownUrl() + " did not answer within " + WITHIN_SECONDS + " s");
    }
    if (temporalProblem != null) {
      problems.add(temporalProblem);
    }
    return problems;
  }

  private String postgresProblem() {
    try (Connection connection = database.getConnection()) {
      return connection.isValid((int) WITHIN_SECONDS) ? null : "PostgreSQL at " + store.shownUrl() + " does not answer";
    } catch (Exception e) {
      return "PostgreSQL at " + store.shownUrl() + " unreachable: " + store.shown(firstLine(e.getMessage()));
    }
  }

  private String temporalProblem() {
    try {
      temporal.blockingStub().withDeadlineAfter(WITHIN_SECONDS, TimeUnit.SECONDS)
          .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
      return null;
    } catch (RuntimeException e) {
      return "Temporal at " + temporalAddress + " unreachable: " + Redaction.SHAPES.apply(firstLine(e.getMessage()));
    }
  }

  private static String firstLine(String message) {
    return String.valueOf(message).lines().findFirst().orElse("").strip();
  }
}
