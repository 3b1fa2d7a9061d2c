package dev.kandev.recovery.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.StaleFenceException;
import dev.kandev.recovery.activities.store.UnknownSessionException;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.resume.ResumeActivityOptions;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No retry of a failure that cannot heal, under the resume's retry policies for a step ({@code
 * STORE}) and for a compensation ({@code COMPENSATION}): an activity that throws it runs once. The
 * worker's own interceptors (Temporal's test server), and an activity that stands in for any store
 * call.
 */
public class UnhealableFailuresTest {
  private static final String QUEUE = "unhealable";
  private static final Map<String, AtomicInteger> ATTEMPTS = new ConcurrentHashMap<>();
  private static TestWorkflowEnvironment env;

  @BeforeAll
  static void startWorker() {
    env = TestWorkflowEnvironment.newInstance(
        TestEnvironmentOptions.newBuilder().setWorkerFactoryOptions(TemporalWorkers.factoryOptions()).build());
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(CallingWorkflowImpl.class);
    worker.registerActivitiesImplementations(new FailingOnce());
    env.start();
  }

  @AfterAll
  static void stop() {
    env.close();
  }

  static Stream<Arguments> storeFailures() {
    return Stream.of("STORE", "COMPENSATION").flatMap(options -> Stream.of(
        Arguments.of(options, "unknown-session", FailureType.SESSION_NOT_FOUND),
        Arguments.of(options, "stale-fence", FailureType.RESUME_LOCK_LOST)));
  }

  @ParameterizedTest(name = "{1} under {0}")
  @MethodSource("storeFailures")
  void theStoresUnhealableFailuresRunOnceAsNonRetryableExpectedFailures(
      String options, String thrown, FailureType raisedAs) {
    Outcome outcome = call(options, thrown);

    assertThat(outcome.attempts()).isEqualTo(1);
    assertThat(outcome.failure()).isEqualTo(raisedAs.type() + " non-retryable BENIGN");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(FailureType.class)
  void aCatalogueTypeIsAttemptedAgainExactlyWhenItIsRetryable(FailureType type) {
    for (String options : new String[] {"STORE", "COMPENSATION"}) {
      Outcome outcome = call(options, type.name());

      if (type.retryable()) {
        assertThat(outcome.attempts()).as("%s under %s", type, options).isEqualTo(2);
        assertThat(outcome.failure()).as("%s under %s", type, options).isEqualTo("none");
      } else {
        assertThat(outcome.attempts()).as("%s under %s", type, options).isEqualTo(1);
        assertThat(outcome.failure()).as("%s under %s", type, options).isEqualTo(type.type() + " non-retryable BENIGN");
      }
    }
  }

  record Outcome(int attempts, String failure) {}

  private static Outcome call(String options, String failure) {
    String workflowId = "calls-" + UUID.randomUUID();
    CallingWorkflow workflow = env.getWorkflowClient().newWorkflowStub(
        CallingWorkflow.class, WorkflowOptions.newBuilder().setTaskQueue(QUEUE).setWorkflowId(workflowId).build());
    String result = workflow.call(options, failure);
    return new Outcome(ATTEMPTS.get(workflowId).get(), result);
  }

  @WorkflowInterface
  public interface CallingWorkflow {
    /** Calls the activity once under the named options; its failure's type, retryability and category, or "none". */
    @WorkflowMethod
    String call(String options, String failure);
  }

  public static class CallingWorkflowImpl implements CallingWorkflow {
    @Override
    public String call(String options, String failure) {
      ActivityOptions chosen = options.equals("STORE") ? ResumeActivityOptions.STORE : ResumeActivityOptions.COMPENSATION;
      try {
        Workflow.newActivityStub(StoreCall.class, chosen).run(failure);
        return "none";
      } catch (ActivityFailure e) {
        ApplicationFailure cause = (ApplicationFailure) e.getCause();
        return cause.getType() + (cause.isNonRetryable() ? " non-retryable " : " retryable ") + cause.getCategory();
      }
    }
  }

  @ActivityInterface
  public interface StoreCall {
    @ActivityMethod
    void run(String failure);
  }

  /** Counts its attempts per workflow; fails the first with {@code failure}, succeeds after that. */
  static final class FailingOnce implements StoreCall {
    @Override
    public void run(String failure) {
      String workflowId = Activity.getExecutionContext().getInfo().getWorkflowId();
      if (ATTEMPTS.computeIfAbsent(workflowId, id -> new AtomicInteger()).incrementAndGet() > 1) {
        return;
      }
      switch (failure) {
        case "unknown-session" -> throw new UnknownSessionException("s-gone");
        case "stale-fence" -> throw new StaleFenceException("s1", Fence.of(7));
        default -> throw FailureType.valueOf(failure).failure("injected " + failure);
      }
    }
  }
}
