package dev.kandev.recovery.activities.store.kandev;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.MirrorExecutorsRunningStore;
import dev.kandev.recovery.activities.store.MirrorSessionIdentityStore;
import dev.kandev.recovery.activities.store.MirrorSessionStore;
import dev.kandev.recovery.activities.store.MirrorTranscriptStore;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.TranscriptStore;

/**
 * The stores whose rows are Kandev's, in one layout: chosen once, at wiring; everything else of ours
 * (locks, leases, presence, runtime jobs) has one implementation on our schema.
 */
public record KandevLayoutStores(
    SessionStore sessions, SessionIdentityStore identities, ExecutorsRunningStore executors, TranscriptStore transcript) {

  /** The stores of {@code layout}; in the kandev layout each transition hands its event to {@code outbox}. */
  public static KandevLayoutStores of(StoreLayout layout, ObjectMapper json, KandevEventOutbox outbox) {
    if (!layout.isKandev()) {
      return new KandevLayoutStores(new MirrorSessionStore(json), new MirrorSessionIdentityStore(),
          new MirrorExecutorsRunningStore(), new MirrorTranscriptStore());
    }
    KandevSessionStore sessions = new KandevSessionStore(layout, json, outbox);
    return new KandevLayoutStores(sessions, new KandevSessionIdentityStore(layout, sessions),
        new KandevExecutorsRunningStore(layout), new KandevTranscriptStore(layout, sessions, outbox));
  }
}
