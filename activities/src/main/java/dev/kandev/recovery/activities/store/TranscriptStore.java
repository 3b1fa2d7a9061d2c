package dev.kandev.recovery.activities.store;

import java.util.List;
import org.jdbi.v3.core.Handle;

/** The session transcript; a {@code session/load} replay never duplicates a persisted message. */
public interface TranscriptStore {
  /**
   * Records what a {@code session/load} replayed. A replayed message that matches a persisted one
   * not yet matched in this replay (same provider id, else same role and content) is recognised and
   * skipped; only messages the transcript lacks are appended.
   *
   * @return how many rows were inserted
   */
  int recordReplay(Handle h, String sessionId, List<TranscriptMessage> replayed);
}
