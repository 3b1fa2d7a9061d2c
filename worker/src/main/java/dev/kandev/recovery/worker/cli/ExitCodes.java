package dev.kandev.recovery.worker.cli;

/** The exit codes of every command (README "Exit codes"). */
public final class ExitCodes {
  public static final int OK = 0;
  /** The resume or runtime update ended failed (or was rejected); the output says why. */
  static final int FAILED = 1;
  /** Bad arguments or settings; nothing was done. */
  public static final int USAGE = 2;
  /** Refused: a resume of the other mode runs for the session. */
  static final int REFUSED = 3;
  /** Anything unexpected; the stack trace follows. */
  static final int ERROR = 4;
  public static final int TEMPORAL_UNREACHABLE = 5;
  public static final int DATABASE_UNREACHABLE = 6;
  /** The store's schema was contracted by a newer release than this worker (docs/upgrades.md). */
  public static final int SCHEMA_INCOMPATIBLE = 7;

  private ExitCodes() {}
}
