package dev.kandev.recovery.worker.observability;

import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * {@code /readyz}: PostgreSQL ({@code database}, at {@code databaseUrl}) and Temporal ({@code
 * temporal}, at {@code temporalAddress}) each answer within a few seconds.
 */
public record Readiness(DataSource database, String databaseUrl, WorkflowServiceStubs temporal, String temporalAddress) {
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
      problems.add("PostgreSQL at " + databaseUrl + " did not answer within " + WITHIN_SECONDS + " s");
    }
    if (temporalProblem != null) {
      problems.add(temporalProblem);
    }
    return problems;
  }

  private String postgresProblem() {
    try (Connection connection = database.getConnection()) {
      return connection.isValid((int) WITHIN_SECONDS) ? null : "PostgreSQL at " + databaseUrl + " does not answer";
    } catch (Exception e) {
      return "PostgreSQL at " + databaseUrl + " unreachable: " + e.getMessage();
    }
  }

  private String temporalProblem() {
    try {
      temporal.blockingStub().withDeadlineAfter(WITHIN_SECONDS, TimeUnit.SECONDS)
          .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
      return null;
    } catch (RuntimeException e) {
      return "Temporal at " + temporalAddress + " unreachable: " + e.getMessage();
    }
  }
}
