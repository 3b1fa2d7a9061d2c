package dev.kandev.recovery.activities.store;

import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.statement.StatementExceptions;
import org.jdbi.v3.core.statement.TemplateEngine;
import org.jdbi.v3.postgres.PostgresPlugin;

/**
 * Where store operations get their transaction: every store method takes the {@link Handle} of a
 * transaction opened here, so a caller composes several operations into one transaction (see
 * docs/decisions/0001-store-idiom.md). A database failure becomes a (retryable) {@link
 * StoreException}; any other exception rolls the transaction back and passes through unchanged.
 *
 * <p>A transaction whose connection the server closed before the transaction's end (a PostgreSQL
 * restart leaves every pooled connection dead, and the pool hands one out before it notices) is run
 * again on a new connection, up to {@link #CONNECTION_ATTEMPTS} times in all, and so is one that got
 * no connection: its work failed before the commit, so nothing of it was written. Without this, a step that is not retried (the launch)
 * failed on the first statement after a restart of a second, with an uncatalogued store failure
 * (found by the fault campaign, docs/reliability.md). A connection lost at the commit itself is not
 * run again: whether it committed is unknown.
 */
public final class Transactions {
  /** Work on one transaction handle. */
  @FunctionalInterface
  public interface Work<T> {
    T run(Handle handle);
  }

  /** Work on one transaction handle that returns nothing. */
  @FunctionalInterface
  public interface VoidWork {
    void run(Handle handle);
  }

  /**
   * How often a transaction runs when the server keeps closing its connection before its end (or it
   * cannot get one): the pool may hand out several dead connections in a row after a restart, and a
   * restart takes a second or two, so the attempts wait 100 ms doubled each time, up to a
   * second (about 4.5 s in all) before the step fails.
   */
  static final int CONNECTION_ATTEMPTS = 8;
  private static final long FIRST_WAIT_MILLIS = 100;
  private static final long LONGEST_WAIT_MILLIS = 1_000;
  /**
   * No attempt starts later than this after the first: a database that is down (each attempt then
   * waits the pool's connection timeout, 10 s) fails the step after one wait, as before.
   */
  private static final long RETRY_WINDOW_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(6);

  private final Jdbi jdbi;

  public Transactions(DataSource dataSource) {
    this.jdbi = Jdbi.create(dataSource).installPlugin(new PostgresPlugin());
    // Failures carry the driver's message only: bound values (ids, hashes) stay out of them.
    jdbi.getConfig(StatementExceptions.class).setMessageRendering(StatementExceptions.MessageRendering.NONE);
    // The SQL runs as written: no template attributes (so '<' and '>' in it are never rewritten).
    jdbi.setTemplateEngine(TemplateEngine.NOP);
  }

  /**
   * Runs {@code work} in one transaction at PostgreSQL's default isolation (READ COMMITTED): it
   * commits if {@code work} returns, and rolls back if it throws. {@code what} names it in a failure.
   */
  public <T> T inTransaction(String what, Work<T> work) {
    return again(what, work, false);
  }

  private <T> T again(String what, Work<T> work, boolean snapshot) {
    long start = System.nanoTime();
    for (int attempt = 1; ; attempt++) {
      // Lost before the work began (no connection, or none that could begin): nothing was written either.
      boolean[] workLostConnection = {true};
      try {
        return jdbi.inTransaction(handle -> {
          workLostConnection[0] = false;
          try {
            if (snapshot) {
              // Must be the transaction's first statement; it changes this transaction only.
              handle.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
            }
            return work.run(handle);
          } catch (JdbiException e) {
            workLostConnection[0] = connectionClosed(e);
            throw e;
          }
        });
      } catch (JdbiException e) {
        long wait = Math.min(LONGEST_WAIT_MILLIS, FIRST_WAIT_MILLIS << (attempt - 1));
        boolean inWindow = System.nanoTime() - start + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(wait)
            < RETRY_WINDOW_NANOS;
        if (!workLostConnection[0] || !connectionClosed(e) || attempt >= CONNECTION_ATTEMPTS || !inWindow) {
          throw failed(what, e);
        }
        pause(wait, what, e);
      }
    }
  }

  private static void pause(long millis, String what, JdbiException e) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw failed(what, e);
    }
  }

  /**
   * Whether the server closed the connection: SQL states of class 08 (connection exception) and 57P01
   * to 57P03 (the server shutting down, crashed, or not yet accepting connections).
   */
  static boolean connectionClosed(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        return state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03");
      }
    }
    return false;
  }

  /** {@link #inTransaction} of work that returns nothing. */
  public void run(String what, VoidWork work) {
    inTransaction(what, handle -> {
      work.run(handle);
      return null;
    });
  }

  /**
   * Runs reads on one consistent snapshot: a read-only REPEATABLE READ transaction, in which every
   * statement sees the database as it was at the first one (a read-only transaction never fails
   * with a serialization error).
   */
  public <T> T inSnapshot(String what, Work<T> work) {
    return again(what, work, true);
  }

  private static StoreException failed(String what, JdbiException e) {
    Throwable cause = e.getCause() != null ? e.getCause() : e;
    return new StoreException(what + " failed: " + cause.getMessage(), e);
  }
}
