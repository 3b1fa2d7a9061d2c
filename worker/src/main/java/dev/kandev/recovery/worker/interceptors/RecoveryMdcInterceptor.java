package dev.kandev.recovery.worker.interceptors;

import dev.kandev.recovery.worker.logging.RecoveryMdc;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.workflow.Workflow;
import org.slf4j.MDC;

/**
 * Puts the session id (or a runtime update's agent id) in the MDC of the workflow thread and of
 * each activity execution, beside the ids the SDK puts there. Only the thread-local MDC changes:
 * no command, so replays are unaffected.
 */
public final class RecoveryMdcInterceptor extends WorkerInterceptorBase {
  @Override
  public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
    return new WorkflowInboundCallsInterceptorBase(next) {
      @Override
      public WorkflowOutput execute(WorkflowInput input) {
        // The SDK clears the workflow thread's MDC when the thread ends.
        RecoveryMdc.subjectOf(Workflow.getInfo().getWorkflowId()).ifPresent(entry -> MDC.put(entry[0], entry[1]));
        return super.execute(input);
      }
    };
  }

  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new ActivityInboundCallsInterceptorBase(next) {
      @Override
      public void init(ActivityExecutionContext context) {
        // Not removed after the execution: the SDK logs a failed activity after it returned. An
        // activity thread's next execution replaces them.
        MDC.remove(RecoveryMdc.SESSION_ID);
        MDC.remove(RecoveryMdc.AGENT_ID);
        RecoveryMdc.subjectOf(context.getInfo().getWorkflowId()).ifPresent(entry -> MDC.put(entry[0], entry[1]));
        super.init(context);
      }
    };
  }
}
