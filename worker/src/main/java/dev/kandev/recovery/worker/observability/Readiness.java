package dev.kandev.recovery.worker.observability;

import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/** {@code /readyz}: PostgreSQL and Temporal each answer within a few seconds. */
public final class Readiness {
  private static final long WITHIN_SECONDS = 3;

  private final DataSource database;
  private final String databaseUrl;
  private final WorkflowServiceStubs temporal;
  private final String temporalAddress;

  public Readiness(DataSource database, String databaseUrl, WorkflowServiceStubs temporal, String temporalAddress) {
    this.database = database;
    this.databaseUrl = databaseUrl;
    this.temporal = temporal;
    this.temporalAddress = temporalAddress;
  }

  /** What does not answer now; empty when ready. */
  public List<String> problems() {
    CompletableFuture<String> postgres = CompletableFuture.supplyAsync(this::postgres);
    List<String> problems = new ArrayList<>();
    String temporalProblem = temporal();
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

  private String postgres() {
    try (Connection connection = database.getConnection()) {
      return connection.isValid((int) WITHIN_SECONDS) ? null : "PostgreSQL at " + databaseUrl + " does not answer";
    } catch (Exception e) {
      return "PostgreSQL at " + databaseUrl + " unreachable: " + e.getMessage();
    }
  }

  private String temporal() {
    try {
      temporal.blockingStub().withDeadlineAfter(WITHIN_SECONDS, TimeUnit.SECONDS)
          .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
      return null;
    } catch (RuntimeException e) {
      return "Temporal at " + temporalAddress + " unreachable: " + e.getMessage();
    }
  }
}
