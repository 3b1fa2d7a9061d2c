package dev.kandev.recovery.workflows.resume;

/** What the user (or restart recovery) asked for. */
public enum ResumeMode {
  /** Load the stored provider-native session with ACP {@code session/load}; never a silent new one. */
  RESUME,
  /** The user chose Start fresh: clear the stored identity, then {@code session/new}. */
  START_FRESH
}
