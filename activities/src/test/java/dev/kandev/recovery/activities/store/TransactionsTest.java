package dev.kandev.recovery.activities.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kandev.recovery.activities.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.function.BiFunction;
import dev.kandev.recovery.workflows.model.SessionState;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TransactionsTest {
  /** A bound on a hang, not a performance threshold. */
  private static final Duration HANG = Duration.ofMinutes(2);

  @RegisterExtension final TestDatabase db = new TestDatabase();

  @BeforeEach
  void session() {
    db.fixtures().sessionWithToken("s1", SessionState.FAILED, "tok-1");
  }

  private static String errorOf(Handle h) {
    return h.createQuery("SELECT error_message FROM task_sessions WHERE id = 's1'").mapTo(String.class).one();
  }

  private void commitElsewhere(String error) {
    db.fixtures().exec("UPDATE task_sessions SET error_message = ? WHERE id = 's1'", error);
  }

  /** Reads the error twice in one transaction {@code opened} opens, another committing a change between the reads. */
  private String[] readTwiceAroundACommit(BiFunction<String, Transactions.Work<String[]>, String[]> opened) {
    return opened.apply("read twice", h -> {
      String first = errorOf(h);
      commitElsewhere("changed meanwhile");
      return new String[] {first, errorOf(h)};
    });
  }

  @Test
  void aSnapshotSeesOneStateWhileOthersCommit() {
    assertThat(readTwiceAroundACommit(db.transactions()::inSnapshot)).containsExactly("", "");
  }

  @Test
  void aPlainTransactionSeesWhatOthersCommitted() {
    assertThat(readTwiceAroundACommit(db.transactions()::inTransaction)).containsExactly("", "changed meanwhile");
  }

  @Test
  void aSnapshotCannotWrite() {
    assertThatThrownBy(() -> db.transactions().inSnapshot("write in a snapshot",
            h -> h.execute("UPDATE task_sessions SET error_message = 'x'")))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("read-only transaction");
    assertThat(db.fixtures().string("SELECT error_message FROM task_sessions WHERE id = 's1'")).isEmpty();
  }

  @Test
  void aFailedWorkRollsBackEverythingItWrote() {
    assertThatThrownBy(() -> db.transactions().run("two writes", h -> {
      h.execute("UPDATE task_sessions SET error_message = 'first' WHERE id = 's1'");
      throw new IllegalStateException("second write refused");
    })).isInstanceOf(IllegalStateException.class).hasMessage("second write refused");

    assertThat(db.fixtures().string("SELECT error_message FROM task_sessions WHERE id = 's1'")).isEmpty();
  }

  /**
   * The server closes the transaction's connection mid-work (as a PostgreSQL restart closes every
   * pooled one): nothing was committed, so the transaction runs again on a new connection and its
   * write lands once. Found by the fault campaign: a launch failed on the first statement after a
   * restart with an uncatalogued store failure.
   */
  @Test
  void aTransactionWhoseConnectionTheServerClosedRunsAgainOnANewOne() {
    java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
    String written = db.transactions().inTransaction("write, the connection closed once", h -> {
      h.execute("UPDATE task_sessions SET error_message = error_message || 'x' WHERE id = 's1'");
      if (attempts.incrementAndGet() == 1) {
        h.execute("SELECT pg_terminate_backend(pg_backend_pid())");
      }
      return errorOf(h);
    });

    assertThat(attempts).hasValue(2);
    assertThat(written).isEqualTo("x");
    assertThat(db.fixtures().string("SELECT error_message FROM task_sessions WHERE id = 's1'")).isEqualTo("x");
  }

  /**
   * The pool gets no connection for a moment (PostgreSQL restarting: connection refused, "the
   * database system is starting up"): the transaction waits and runs once the server answers — a
   * restart of a second or two failed a launch with an uncatalogued store failure (the fault
   * campaign's long run). A DataSource that refuses the first two connections stands in for it.
   */
  @Test
  void aTransactionThatGetsNoConnectionWhileTheServerRestartsRunsOnceItAnswers() {
    javax.sql.DataSource real = db.dataSource();
    java.util.concurrent.atomic.AtomicInteger refusals = new java.util.concurrent.atomic.AtomicInteger(2);
    javax.sql.DataSource restarting = (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
        getClass().getClassLoader(), new Class<?>[] {javax.sql.DataSource.class}, (proxy, method, args) -> {
          if (method.getName().equals("getConnection") && refusals.getAndDecrement() > 0) {
            throw new java.sql.SQLException("FATAL: the database system is starting up", "57P03");
          }
          try {
            return method.invoke(real, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
    java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();

    String error = new Transactions(restarting).inTransaction("read while the server restarts", h -> {
      runs.incrementAndGet();
      return errorOf(h);
    });

    assertThat(error).isEmpty();
    assertThat(runs).as("the work ran once, on the first connection it got").hasValue(1);
  }

  /** A connection the server keeps closing fails the step after a bounded number of attempts. */
  @Test
  void aConnectionClosedAtEveryAttemptFailsTheStepAfterItsAttempts() {
    java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
    Throwable failure = catchThrowable(() -> db.transactions().run("read, the connection always closed", h -> {
      attempts.incrementAndGet();
      h.execute("SELECT pg_terminate_backend(pg_backend_pid())");
    }));

    assertThat(failure).isInstanceOf(StoreException.class).hasMessageContaining("terminating connection");
    assertThat(attempts).hasValue(Transactions.CONNECTION_ATTEMPTS);
  }

  @Test
  void aDatabaseFailureIsAStoreExceptionNamedByItsStepWithoutTheBoundValues() {
    Throwable failure = catchThrowable(() -> db.transactions().inTransaction(
        "read a column that is not there",
        h -> h.createQuery("SELECT nope FROM task_sessions WHERE id = :id").bind("id", "needle-value").mapToMap().list()));

    assertThat(failure).isInstanceOf(StoreException.class)
        .hasMessageStartingWith("read a column that is not there failed: ")
        .hasMessageContaining("nope");
    for (Throwable t = failure; t != null; t = t.getCause()) {
      assertThat(String.valueOf(t.getMessage())).doesNotContain("needle-value");
    }
  }

  /**
   * A step whose row someone else holds locked gives up after the lock timeout with a retryable
   * store failure, and gives its connection back: a minute-long lock cannot take the pool.
   */
  @Test
  void aStatementWaitingOnALockedRowEndsAtTheLockTimeoutAndFreesItsConnection() throws Exception {
    try (Connection holder = DriverManager.getConnection(TestDatabase.URL, TestDatabase.USER, "")) {
      holder.setAutoCommit(false);
      holder.createStatement().execute("SELECT 1 FROM " + db.database().schema() + ".task_sessions WHERE id = 's1' FOR UPDATE");
      long started = System.nanoTime();
      Throwable failure = catchThrowable(() -> db.transactions().run("update a locked session",
          h -> h.execute("UPDATE task_sessions SET error_message = 'x' WHERE id = 's1'")));
      Duration waited = Duration.ofNanos(System.nanoTime() - started);

      assertThat(failure).isInstanceOf(StoreException.class).hasMessageContaining("canceling statement due to lock timeout");
      // PostgreSQL ends the wait at the lock timeout (the message says which timeout); the upper bound
      // only turns a hang into a failure, generous for a busy machine.
      assertThat(waited).isGreaterThanOrEqualTo(Database.LOCK_TIMEOUT).isLessThan(HANG);
      assertThat(db.transactions().inTransaction("read while the row stays locked", TransactionsTest::errorOf)).isEmpty();
      holder.rollback();
    }
  }

  /**
   * A statement that would run longer than the statement timeout (pg_sleep on the server, past the
   * timeout by the hang bound, so a missing timeout fails the test instead of hanging it) is cancelled by
   * PostgreSQL at the timeout: a retryable store failure naming the step and the timeout, and its
   * connection serves the next step.
   */
  @Test
  void aStatementRunningLongerThanTheStatementTimeoutEndsAtItWithAStoreFailure() {
    long started = System.nanoTime();
    long seconds = Database.STATEMENT_TIMEOUT.plus(HANG).toSeconds();
    Throwable failure = catchThrowable(() -> db.transactions().inTransaction("read for too long",
        h -> h.createQuery("SELECT pg_sleep(" + seconds + ")::text").mapTo(String.class).one()));
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(failure).isInstanceOf(StoreException.class)
        .hasMessage("read for too long failed: ERROR: canceling statement due to statement timeout");
    // PostgreSQL cancels it at the timeout; the upper bound only turns a hang into a failure.
    assertThat(took).isGreaterThanOrEqualTo(Database.STATEMENT_TIMEOUT).isLessThan(Database.STATEMENT_TIMEOUT.plus(HANG));
    Integer next = db.transactions().inTransaction("read at once", h -> h.createQuery("SELECT 1").mapTo(Integer.class).one());
    assertThat(next).isEqualTo(1);
  }
}
