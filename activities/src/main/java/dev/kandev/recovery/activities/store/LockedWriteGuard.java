package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.SessionState;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Update;

/**
 * The two checks every guarded write of a session store makes on the locked session row, in both
 * store layouts: the session is in one of the expected states, and the resume lock of {@code fence}
 * is still held.
 */
public final class LockedWriteGuard {
  private static final Pattern METADATA_KEY = Pattern.compile("[a-z][a-z0-9_]{0,63}");

  private LockedWriteGuard() {}

  /**
   * Rejects a metadata write that may never go ahead: a key that is not a lowercase identifier or is
   * the ACP block's own, or no expected state at all.
   */
  public static void requireWritableMetadataEntry(String key, Set<SessionState> expected) {
    if (!METADATA_KEY.matcher(key).matches() || key.equals("acp")) {
      throw new IllegalArgumentException(
          "metadata key '" + key + "' is not writable here (lowercase identifier, not 'acp')");
    }
    if (expected.isEmpty()) {
      throw new IllegalArgumentException("a guarded write needs at least one expected state");
    }
  }

  /**
   * Why the write may not go ahead ({@code STATE_MISMATCH} or {@code FENCED}); empty when it may.
   * Call it after locking the row whose state is {@code current}.
   */
  public static Optional<TransitionResult.Outcome> refusal(
      Handle h, String sessionId, SessionState current, Set<SessionState> expected, Fence fence) {
    if (!expected.contains(current)) {
      return Optional.of(TransitionResult.Outcome.STATE_MISMATCH);
    }
    if (!ResumeLockStore.holds(h, sessionId, fence)) {
      return Optional.of(TransitionResult.Outcome.FENCED);
    }
    return Optional.empty();
  }

  /**
   * Puts back the credential snapshot kept under {@code fence} by running {@code putBack}, if one was
   * kept ({@code keptFenceSql} answers, for the session bound as {@code :id}, whether the fence it kept
   * the snapshot under equals {@code :fence}) and {@link #refusal} allows the write. Empty if nothing
   * was kept under {@code fence}. Call it after locking the row whose state is {@code current}.
   */
  public static Optional<GuardedWriteResult> restoreKeptSnapshot(Handle h, String sessionId, SessionState current,
      Set<SessionState> expected, Fence fence, String keptFenceSql, Runnable putBack) {
    boolean kept = h.createQuery(keptFenceSql)
        .bind("fence", fence.token())
        .bind("id", sessionId)
        .mapTo(Boolean.class)
        .findOne()
        .orElse(false) == Boolean.TRUE;
    if (!kept) {
      return Optional.empty();
    }
    TransitionResult.Outcome outcome = refusal(h, sessionId, current, expected, fence).orElseGet(() -> {
      putBack.run();
      return TransitionResult.Outcome.APPLIED;
    });
    return Optional.of(new GuardedWriteResult(outcome, current));
  }

  /**
   * Runs the compare-and-set {@code write} on the locked row whose state is {@code current} if
   * {@link #refusal} allows it; it must then change exactly that row.
   */
  public static GuardedWriteResult write(Handle h, String sessionId, SessionState current,
      Set<SessionState> expected, Fence fence, Supplier<Update> write) {
    Optional<TransitionResult.Outcome> refused = refusal(h, sessionId, current, expected, fence);
    if (refused.isPresent()) {
      return new GuardedWriteResult(refused.get(), current);
    }
    if (write.get().execute() != 1) {
      throw new IllegalStateException("guarded write on a locked row of session " + sessionId + " lost; this is a bug");
    }
    return new GuardedWriteResult(TransitionResult.Outcome.APPLIED, current);
  }
}
