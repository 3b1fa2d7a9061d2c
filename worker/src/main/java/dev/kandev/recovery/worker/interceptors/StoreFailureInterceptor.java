package dev.kandev.recovery.worker.interceptors;

import dev.kandev.recovery.activities.store.StaleFenceException;
import dev.kandev.recovery.activities.store.UnknownSessionException;
import dev.kandev.recovery.workflows.FailureType;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;

/**
 * Raises the two store failures no retry can heal — a session that does not exist, a write under a
 * resume lock a newer holder has taken over — as the non-retryable {@link
 * FailureType#SESSION_NOT_FOUND} and {@link FailureType#RESUME_LOCK_LOST}, from any activity.
 * Left to Temporal they would be retried like a database fault: five times as a step, for up to a
 * day as a compensation. An activity that catches them itself, to say more, still may.
 */
public final class StoreFailureInterceptor extends WorkerInterceptorBase {
  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new ActivityInboundCallsInterceptorBase(next) {
      @Override
      public ActivityOutput execute(ActivityInput input) {
        try {
          return super.execute(input);
        } catch (UnknownSessionException e) {
          throw FailureType.SESSION_NOT_FOUND.failure(e.getMessage());
        } catch (StaleFenceException e) {
          throw FailureType.RESUME_LOCK_LOST.failure(e.getMessage());
        }
      }
    };
  }
}
