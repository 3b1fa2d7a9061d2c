package dev.kandev.recovery.workflows.resume;

import io.temporal.workflow.Workflow;
import java.util.Map;

/**
 * {@code kandev_resumes{outcome, failure_type}} and {@code kandev_resume_duration{outcome}} (workflow
 * time); Temporal's metrics scope emits them once, never on replay, and issues no command.
 */
final class ResumeMetrics {
  private final long startedAtMillis = Workflow.currentTimeMillis();

  void count(String outcome, String failureType) {
    Workflow.getMetricsScope().tagged(Map.of("outcome", outcome, "failure_type", failureType))
        .counter("kandev_resumes").inc(1);
    Workflow.getMetricsScope().tagged(Map.of("outcome", outcome)).timer("kandev_resume_duration")
        .record(com.uber.m3.util.Duration.ofMillis(Workflow.currentTimeMillis() - startedAtMillis));
  }
}
