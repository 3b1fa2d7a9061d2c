package dev.kandev.recovery.activities.store;

import dev.kandev.recovery.workflows.model.Fence;
import org.jdbi.v3.core.Handle;

/**
 * The only writer of the resume token ({@code executors_running.resume_token}) and its mirror
 * ({@code task_sessions.metadata.acp.session_id}). Its API cannot blank them by accident: a
 * replacement needs a non-blank id, and clearing is a separate, explicitly named operation for the
 * user's Start fresh choice. Both copies always change together, in the caller's transaction.
 */
public interface SessionIdentityStore {
  SessionIdentity read(Handle h, String sessionId);

  /** After a successful ACP {@code session/new}: both copies become {@code newToken}. */
  void replaceAfterNewSession(Handle h, String sessionId, String newToken, Fence fence);

  /** The user chose Start fresh: both copies are cleared. Nothing else clears them. */
  void clearForFreshStart(Handle h, String sessionId, Fence fence);
}
