package dev.kandev.recovery.activities.testing;

import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.resume.SessionActivitiesImpl;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.activities.store.kandev.KandevLayoutStores;
import java.time.Duration;
import java.util.function.Predicate;

/**
 * A resume's session steps as one worker of host {@code host-a} runs them in the store tests: every
 * agent known, none running on this worker, no resume run ended, a lock's time to live of 5 minutes.
 */
public final class TestSessionActivities {
  private TestSessionActivities() {}

  public static SessionActivitiesImpl of(Transactions transactions, KandevLayoutStores stores, String workerInstance) {
    return of(transactions, stores, workerInstance, agent -> true);
  }

  /** A worker that knows only the agents {@code isKnownAgent} accepts (e.g. one of an older release). */
  public static SessionActivitiesImpl of(Transactions transactions, KandevLayoutStores stores, String workerInstance,
      Predicate<String> isKnownAgent) {
    return new SessionActivitiesImpl(transactions, stores.sessions(), stores.identities(), stores.executors(),
        Json.mapper(), isKnownAgent, session -> false, workerInstance, "host-a", new ResumeLockStore(),
        Duration.ofMinutes(5), owner -> false);
  }
}
