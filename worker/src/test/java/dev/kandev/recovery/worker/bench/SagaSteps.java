package dev.kandev.recovery.worker.bench;

import dev.kandev.recovery.worker.Components;
import dev.kandev.recovery.workflows.resume.AgentActivities;
import dev.kandev.recovery.workflows.resume.CredentialActivities;
import dev.kandev.recovery.workflows.resume.ResumeActivityOptions;
import dev.kandev.recovery.workflows.resume.ResumeLockActivities;
import dev.kandev.recovery.workflows.resume.SessionActivities;
import io.temporal.testing.TestActivityEnvironment;
import java.util.ArrayList;
import java.util.List;

/**
 * The worker's own activity objects ({@link Components#activities()}) for the resume saga's steps, as
 * the paths without a Temporal server call them ({@link DirectResume}, {@link DbosResume}). The
 * store and broker steps are plain objects. The launch needs an activity context (it heartbeats while
 * the agent starts), so it is called through a {@link TestActivityEnvironment}: in process, with the
 * real activity code and the SDK's real heartbeat path. Each lane (a thread of a parallel run) has
 * its own environment: one environment serves one activity at a time.
 */
public final class SagaSteps implements AutoCloseable {
  public final ResumeLockActivities locks;
  public final SessionActivities sessions;
  public final CredentialActivities credentials;
  private final List<TestActivityEnvironment> environments = new ArrayList<>();
  private final List<AgentActivities> launchers = new ArrayList<>();

  public SagaSteps(Components components, int lanes) {
    List<Object> activities = components.registrations().activities();
    this.locks = find(activities, ResumeLockActivities.class);
    this.sessions = find(activities, SessionActivities.class);
    this.credentials = find(activities, CredentialActivities.class);
    AgentActivities agent = find(activities, AgentActivities.class);
    for (int lane = 0; lane < lanes; lane++) {
      TestActivityEnvironment environment = TestActivityEnvironment.newInstance();
      environment.registerActivitiesImplementations(agent);
      environments.add(environment);
      launchers.add(environment.newActivityStub(AgentActivities.class, ResumeActivityOptions.LAUNCH));
    }
  }

  /** The launch activity as lane {@code lane} calls it. */
  public AgentActivities launcher(int lane) {
    return launchers.get(lane);
  }

  private static <T> T find(List<Object> activities, Class<T> type) {
    return activities.stream().filter(type::isInstance).map(type::cast).findFirst()
        .orElseThrow(() -> new IllegalStateException("no " + type.getSimpleName() + " among the worker's activities"));
  }

  @Override
  public void close() {
    environments.forEach(TestActivityEnvironment::close);
  }
}
