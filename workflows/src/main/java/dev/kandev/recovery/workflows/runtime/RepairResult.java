package dev.kandev.recovery.workflows.runtime;

import java.util.Locale;

/**
 * What the targeted {@code _npx} repair really did: the {@code repair} field of the result and the
 * progress. {@code repaired} is true only for {@link #REMOVED}.
 */
public enum RepairResult {
  /** No repair ran: the first update succeeded, or the job ended before. */
  NOT_RUN,
  /** The package's {@code _npx/<key>} tree existed and was removed. */
  REMOVED,
  /** There was no tree to remove (no cache root, {@code _npx} or key directory); nothing changed. */
  NOTHING_TO_REMOVE,
  /** The repair refused an unsafe target (a symlink, {@code /}, not a directory); nothing was deleted. */
  REFUSED,
  /** The repair could not finish (npm named no cache root, a removal failed, the step was lost). */
  FAILED;

  /** For people: {@code nothing to remove}. */
  public String describe() {
    return name().toLowerCase(Locale.ROOT).replace('_', ' ');
  }
}
