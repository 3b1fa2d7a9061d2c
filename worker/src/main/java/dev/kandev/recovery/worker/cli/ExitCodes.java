package dev.kandev.recovery.worker.cli;

/** The exit codes of every command (docs/cli.md, "Exit codes"). */
public final class ExitCodes {
  public static final int OK = 0;
  /** The resume or runtime update ended failed (or was rejected); the output says why. */
  public static final int FAILED = 1;
  /** Bad arguments or settings; nothing was done. */
  public static final int USAGE = 2;
  /** Refused: a resume of the other mode runs for the session. */
  public static final int REFUSED = 3;
  /** Anything unexpected; the stack trace follows. */
  public static final int ERROR = 4;
  public static final int TEMPORAL_UNREACHABLE = 5;
  /** PostgreSQL cannot be reached, refuses the role or has no such database. */
  public static final int DATABASE_UNREACHABLE = 6;
  /** {@code resume}, {@code update-runtime}: no outcome within {@code --timeout}; the run goes on (the output says how to end it). */
  public static final int TIMED_OUT = 7;
  /** The store's schema was contracted by a newer release than this worker (docs/upgrades.md). */
  public static final int SCHEMA_INCOMPATIBLE = 8;
  /** Kandev layout: Kandev's tables lack a column we use, or have it with another type; nothing changed (docs/kandev.md). */
  public static final int KANDEV_SCHEMA_MISMATCH = 9;

  private ExitCodes() {}
}
