package dev.kandev.recovery.worker.cli;

import dev.kandev.recovery.activities.redaction.Redaction;
import dev.kandev.recovery.activities.store.DatabaseSettings;
import dev.kandev.recovery.activities.store.IncompatibleSchemaException;
import dev.kandev.recovery.activities.store.KandevSchemaMismatchException;
import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.temporal.SearchAttributesMissingException;
import dev.kandev.recovery.worker.temporal.TemporalUnreachableException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.util.Optional;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine;

/**
 * What a command that failed prints: an unreachable Temporal or PostgreSQL, a PostgreSQL that refuses
 * the role or has no such database, or a bad setting, is one line on stderr naming the address and
 * what to start or set; anything else keeps its stack trace.
 */
public final class CliErrors implements IExecutionExceptionHandler {
  @Override
  public int handleExecutionException(Exception e, CommandLine command, ParseResult parseResult) {
    PrintWriter err = command.getErr();
    String name = command.getCommandSpec().qualifiedName();
    if (e instanceof TemporalUnreachableException) {
      err.println(name + ": " + e.getMessage());
      return ExitCodes.TEMPORAL_UNREACHABLE;
    }
    Optional<String> refused = databaseRefusal(e);
    if (refused.isPresent()) {
      err.println(name + ": PostgreSQL at " + database().map(DatabaseSettings::shownUrl).orElse("(KANDEV_DB_URL)") + " "
          + refused.get());
      return ExitCodes.DATABASE_UNREACHABLE;
    }
    if (databaseUnreachable(e)) {
      err.println(name + ": cannot reach PostgreSQL at " + database().map(DatabaseSettings::shownUrl).orElse("(KANDEV_DB_URL)")
          + ": " + shown(rootMessage(e))
          + ". Start PostgreSQL there (scripts/setup does), or set KANDEV_DB_URL (and KANDEV_DB_USER, KANDEV_DB_PASSWORD)");
      return ExitCodes.DATABASE_UNREACHABLE;
    }
    if (e instanceof IncompatibleSchemaException) {
      err.println(name + ": " + e.getMessage());
      return ExitCodes.SCHEMA_INCOMPATIBLE;
    }
    if (e instanceof KandevSchemaMismatchException) {
      err.println(name + ": " + e.getMessage());
      return ExitCodes.KANDEV_SCHEMA_MISMATCH;
    }
    if (e instanceof SearchAttributesMissingException) {
      err.println(name + ": " + e.getMessage());
      return ExitCodes.USAGE;
    }
    if (e instanceof IllegalArgumentException && isSettingsError(e)) {
      err.println(name + ": " + e.getMessage());
      return ExitCodes.USAGE;
    }
    e.printStackTrace(err);
    return ExitCodes.ERROR;
  }

  /** PostgreSQL refused or was not found: a connection-class SQL state (08…) or a refused socket under an SQL error. */
  private static boolean databaseUnreachable(Throwable e) {
    boolean sql = false;
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException s) {
        sql = true;
        if (s.getSQLState() != null && s.getSQLState().startsWith("08")) {
          return true;
        }
      }
      if (sql && (t instanceof ConnectException || t instanceof UnknownHostException)) {
        return true;
      }
    }
    return false;
  }

  /**
   * PostgreSQL answered but refused the settings: the role (SQL state class 28) or the database
   * (3D000). What to fix, in the words of the rest of the line; empty for anything else.
   */
  private static Optional<String> databaseRefusal(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException s && s.getSQLState() != null) {
        String why = shown(firstLine(s.getMessage()));
        if (s.getSQLState().startsWith("28")) {
          return Optional.of("refused the login: " + why + ". Set KANDEV_DB_USER and KANDEV_DB_PASSWORD to a role that may log in");
        }
        if (s.getSQLState().equals("3D000")) {
          return Optional.of("has no such database: " + why + ". Create it (createdb) or name another in KANDEV_DB_URL");
        }
      }
    }
    return Optional.empty();
  }

  /** Settings are read from the environment and the files it names (config); their errors name the variable. */
  private static boolean isSettingsError(Throwable e) {
    for (StackTraceElement frame : e.getStackTrace()) {
      if (frame.getClassName().startsWith(Settings.class.getPackageName() + ".")) {
        return true;
      }
    }
    return false;
  }

  /** The store's settings, if they can be read (they were when the command started). */
  private static Optional<DatabaseSettings> database() {
    try {
      return Optional.of(Settings.fromEnvironment().database());
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * A driver's message as the line may show it: the store's password and URL masked (a driver may
   * repeat them); if the settings cannot be read, credentials of a known shape at least.
   */
  private static String shown(String driverMessage) {
    return database().map(db -> db.shown(driverMessage)).orElseGet(() -> Redaction.SHAPES.apply(driverMessage));
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return firstLine(root.getMessage());
  }

  private static String firstLine(String message) {
    return String.valueOf(message).lines().findFirst().orElse("").strip();
  }
}
