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
    try {
      return jdbi.inTransaction(work::run);
    } catch (JdbiException e) {
      throw failed(what, e);
    }
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
    try {
      return jdbi.inTransaction(handle -> {
        // Must be the transaction's first statement; it changes this transaction only.
        handle.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
        return work.run(handle);
      });
    } catch (JdbiException e) {
      throw failed(what, e);
    }
  }

  private static StoreException failed(String what, JdbiException e) {
    Throwable cause = e.getCause() != null ? e.getCause() : e;
    return new StoreException(what + " failed: " + cause.getMessage(), e);
  }
}
