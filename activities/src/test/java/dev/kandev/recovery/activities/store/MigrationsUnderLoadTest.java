package dev.kandev.recovery.activities.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestDatabase;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The real migrations ({@code db/migration}) on connections of their own ({@link Database#migrate},
 * {@link MigrationLimits}): on a store with 200,000 sessions they wait behind a running transaction's
 * row lock longer than the pool's {@link Database#LOCK_TIMEOUT} and still apply, and two workers
 * starting at once apply each migration once, the second waiting on Flyway's advisory lock.
 */
class MigrationsUnderLoadTest {
  private static final int SESSIONS = 200_000;
  /** A bound on a hang, not a performance threshold: each wait below ends as soon as its condition holds. */
  private static final Duration HANG = Duration.ofMinutes(3);
  /** Every migration this release ships, in order, as Flyway finds them. */
  private static final List<String> ALL_VERSIONS = shippedVersions();

  private final String schema = "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
  private final List<CompletableFuture<?>> migrations = new ArrayList<>();

  @AfterEach
  void dropSchema() throws Exception {
    for (CompletableFuture<?> migration : migrations) {
      migration.handle((r, t) -> null).get(HANG.toSeconds(), TimeUnit.SECONDS);
    }
    try (Connection c = connect(); Statement drop = c.createStatement()) {
      drop.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  @Test
  void theMigrationsApplyOn200000SessionsBehindARowLockHeldLongerThanThePoolsLockTimeout() throws Exception {
    migrateTo("1");
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("INSERT INTO " + schema + ".tasks (id, workspace_id, state)"
          + " SELECT 't-' || g, 'ws-1', 'REVIEW' FROM generate_series(1, " + SESSIONS + ") g");
      s.execute("INSERT INTO " + schema + ".task_sessions (id, task_id, agent_id, state, metadata)"
          + " SELECT 's-' || g, 't-' || g, 'test-agent', 'FAILED', jsonb_build_object('acp', jsonb_build_object('session_id', 'tok-' || g))"
          + " FROM generate_series(1, " + SESSIONS + ") g");
    }

    try (Connection reader = connect()) {
      int readerPid = holdRowLock(reader, "s-42");
      CompletableFuture<Void> migration = migrateInBackground();

      Duration beyondPool = Database.LOCK_TIMEOUT.plusSeconds(2);
      Await.until(() -> stillRunning(migration) && count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?"
              + " AND wait_event_type = 'Lock' AND ? = ANY(pg_blocking_pids(pid)) AND now() - query_start > make_interval(secs => ?)",
              MigrationLimits.APPLICATION_NAME, readerPid, beyondPool.toSeconds()) == 1,
          HANG, "a migration statement waiting on the reader's row lock for longer than " + beyondPool);
      assertThat(migration).as("the migration still waits, beyond the pool's lock timeout").isNotDone();

      reader.rollback();
      migration.get(HANG.toSeconds(), TimeUnit.SECONDS);
    }

    assertThat(appliedVersions()).containsExactlyElementsOf(ALL_VERSIONS);
    assertThat(count("SELECT count(*) FROM " + schema + ".task_sessions WHERE executor_id = '' AND executor_host = ''"
        + " AND resume_fence IS NULL AND snapshot_before_resume IS NULL"
        + " AND metadata->'acp'->>'session_id' = 'tok-' || substr(id, 3)")).as("every session, as it was").isEqualTo(SESSIONS);
  }

  @Test
  void twoWorkersMigratingAtOnceApplyEachMigrationOnceTheSecondWaitingOnFlywaysAdvisoryLock() throws Exception {
    migratedTo5WithSession("s-1");

    try (Connection reader = connect()) {
      int readerPid = holdRowLock(reader, "s-1");
      CompletableFuture<Void> first = migrateInBackground();
      Await.until(() -> stillRunning(first) && count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?"
              + " AND wait_event_type = 'Lock' AND ? = ANY(pg_blocking_pids(pid))", MigrationLimits.APPLICATION_NAME, readerPid) == 1,
          HANG, "the first worker's migration V6 waiting on the reader's row lock");

      CompletableFuture<Void> second = migrateInBackground();
      // Flyway's lock: a transaction-level advisory lock a migration connection holds, which another
      // migration connection tries (pg_try_advisory_xact_lock of the same key) and waits for.
      Await.until(() -> stillRunning(first) && stillRunning(second) && count("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity holder ON holder.pid = l.pid"
              + " JOIN pg_stat_activity waiter ON waiter.pid <> l.pid"
              + " WHERE l.locktype = 'advisory' AND l.granted AND holder.application_name = ?"
              + " AND waiter.application_name = ? AND waiter.datname = holder.datname"
              + " AND waiter.query LIKE '%pg_try_advisory_xact_lock(' || ((l.classid::bigint << 32) | l.objid::bigint) || ')%'",
              MigrationLimits.APPLICATION_NAME, MigrationLimits.APPLICATION_NAME) >= 1,
          HANG, "the second worker trying the advisory lock the first one holds");
      assertThat(appliedVersions()).as("nothing applied while the first worker holds the lock")
          .containsExactly("1", "3", "4", "5");
      assertThat(second).as("the second worker waits for the lock").isNotDone();

      reader.rollback();
      first.get(HANG.toSeconds(), TimeUnit.SECONDS);
      second.get(HANG.toSeconds(), TimeUnit.SECONDS);
    }

    assertThat(appliedVersions()).as("each migration applied once, none failed").containsExactlyElementsOf(ALL_VERSIONS);
  }

  /**
   * The migration limits are the migration connection's own: one second of lock timeout ends the
   * migration behind the row lock with PostgreSQL's lock timeout, nothing of that migration applied,
   * and the next start, the lock gone, applies it.
   */
  @Test
  void aMigrationWaitsForALockOnlyAsLongAsItsOwnLockTimeoutAndTheNextStartAppliesIt() throws Exception {
    migratedTo5WithSession("s-1");
    MigrationLimits impatient = new MigrationLimits(Duration.ofSeconds(1), Duration.ofMinutes(1));

    try (Connection reader = connect()) {
      holdRowLock(reader, "s-1");
      CompletableFuture<Void> migration = migrateInBackground(impatient);

      assertThatThrownBy(() -> migration.get(HANG.toSeconds(), TimeUnit.SECONDS))
          .hasRootCauseInstanceOf(SQLException.class)
          .hasMessageContaining("V6__session_executor.sql")
          .hasMessageContaining("canceling statement due to lock timeout");
      assertThat(appliedVersions()).as("V6 rolled back whole").containsExactly("1", "3", "4", "5");
      reader.rollback();
    }

    migrateInBackground(impatient).get(HANG.toSeconds(), TimeUnit.SECONDS);
    assertThat(appliedVersions()).containsExactlyElementsOf(ALL_VERSIONS);
  }

  /** The schema at V5 (V6, next, alters task_sessions) holding one task and its session. */
  private void migratedTo5WithSession(String sessionId) throws SQLException {
    migrateTo("5");
    try (Connection c = connect(); Statement s = c.createStatement()) {
      s.execute("INSERT INTO " + schema + ".tasks (id, workspace_id) VALUES ('t-1', 'ws-1')");
      s.execute("INSERT INTO " + schema + ".task_sessions (id, task_id, agent_id) VALUES ('" + sessionId + "', 't-1', 'test-agent')");
    }
  }

  /** Starts {@link Database#migrate} of a worker that starts now, on its own pool. */
  private CompletableFuture<Void> migrateInBackground() {
    return migrateInBackground(MigrationLimits.DEFAULT);
  }

  private CompletableFuture<Void> migrateInBackground(MigrationLimits limits) {
    CompletableFuture<Void> migration = CompletableFuture.runAsync(() -> {
      try (Database database = Database.open(new DatabaseSettings(TestDatabase.URL, TestDatabase.USER, "", schema, 2, limits, StoreLayout.MIRROR))) {
        database.migrate();
      }
    });
    migrations.add(migration);
    return migration;
  }

  /** True while {@code migration} runs; its failure, once it ended, ends the wait at once. */
  private static boolean stillRunning(CompletableFuture<Void> migration) {
    if (migration.isDone()) {
      migration.join();
      throw new AssertionError("the migration ended while it should wait");
    }
    return true;
  }

  /** Locks the session's row in an open transaction of {@code reader}, as a resume's guarded write does; returns its pid. */
  private int holdRowLock(Connection reader, String sessionId) throws SQLException {
    reader.setAutoCommit(false);
    try (PreparedStatement lock = reader.prepareStatement("SELECT id FROM " + schema + ".task_sessions WHERE id = ? FOR UPDATE")) {
      lock.setString(1, sessionId);
      try (ResultSet r = lock.executeQuery()) {
        assertThat(r.next()).isTrue();
      }
    }
    try (Statement s = reader.createStatement(); ResultSet r = s.executeQuery("SELECT pg_backend_pid()")) {
      r.next();
      return r.getInt(1);
    }
  }

  /** The real migrations up to {@code version}, as an older release left the schema. */
  private void migrateTo(String version) {
    Flyway.configure().dataSource(TestDatabase.URL, TestDatabase.USER, "").schemas(schema).createSchemas(true)
        .locations(Database.COMMON_MIGRATIONS, Database.MIRROR_MIGRATIONS).target(version).load().migrate();
  }

  /** The versions of the successful migrations in the history, in order; a failed or repeated one shows. */
  private List<String> appliedVersions() {
    List<String> versions = new ArrayList<>();
    try (Connection c = connect(); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT version, success FROM " + schema + ".flyway_schema_history"
            + " WHERE type = 'SQL' ORDER BY installed_rank")) {
      while (r.next()) {
        versions.add(r.getBoolean(2) ? r.getString(1) : r.getString(1) + " (failed)");
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
    return versions;
  }

  private static long count(String sql, Object... parameters) {
    try (Connection c = connect(); PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        s.setObject(i + 1, parameters[i]);
      }
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }

  private static Connection connect() throws SQLException {
    return DriverManager.getConnection(TestDatabase.URL, TestDatabase.USER, "");
  }

  private static List<String> shippedVersions() {
    try (var common = Files.list(Path.of(MigrationsUnderLoadTest.class.getClassLoader().getResource("db/migration").toURI()));
        var mirror = Files.list(Path.of(MigrationsUnderLoadTest.class.getClassLoader().getResource("db/mirror").toURI()))) {
      return java.util.stream.Stream.concat(common, mirror).map(file -> file.getFileName().toString())
          .filter(name -> name.matches("V\\d+__.*\\.sql"))
          .map(name -> name.substring(1, name.indexOf("__")))
          .sorted(Comparator.comparingInt(Integer::parseInt))
          .toList();
    } catch (IOException | URISyntaxException e) {
      throw new IllegalStateException("cannot list the migrations", e);
    }
  }
}
