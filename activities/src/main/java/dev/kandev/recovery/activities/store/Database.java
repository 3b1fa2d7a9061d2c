package dev.kandev.recovery.activities.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.postgresql.ds.PGSimpleDataSource;

/** The PostgreSQL connection pool and schema migrations of one store schema. */
public final class Database implements AutoCloseable {
  /**
   * How long a statement waits for a row lock, and runs at most, on every pooled connection: below
   * the 30 s a store step's attempt may take, so a statement stuck behind someone else's lock ends
   * (a retryable failure) before its activity attempt is retried on another connection. A stuck row
   * then costs one connection for seconds, never the pool.
   */
  public static final Duration LOCK_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(20);

  private final HikariDataSource dataSource;
  private final DatabaseSettings settings;
  private final String schema;
  private final StoreLayout layout;
  private final Transactions transactions;

  private Database(HikariDataSource dataSource, DatabaseSettings settings) {
    this.dataSource = dataSource;
    this.settings = settings;
    this.schema = settings.schema();
    this.layout = settings.layout();
    this.transactions = new Transactions(dataSource);
  }

  /** Opens a pool whose connections use {@code schema} as their search path. */
  public static Database open(DatabaseSettings settings) {
    if (!settings.schema().matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new IllegalArgumentException(
          "database schema '" + settings.schema() + "' must be a lowercase SQL identifier");
    }
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(settings.url());
    config.setUsername(settings.user());
    if (!settings.password().isEmpty()) {
      config.setPassword(settings.password());
    }
    config.setSchema(settings.schema());
    config.setMaximumPoolSize(settings.maxPoolSize());
    config.setPoolName("kandev-store-" + settings.schema());
    config.setConnectionTimeout(10_000);
    config.setConnectionInitSql("SET lock_timeout = " + LOCK_TIMEOUT.toMillis()
        + "; SET statement_timeout = " + STATEMENT_TIMEOUT.toMillis());
    return new Database(new HikariDataSource(config), settings);
  }

  /**
   * Creates the schema if needed and applies the migrations under {@code db/migration}, after checking
   * that a newer release's migrations left nothing this worker would break on ({@link
   * SchemaCompatibility}) and, in the kandev layout, that Kandev's tables have the columns we use ({@link
   * KandevSchemaCheck}). Migrations of a newer release are left alone (Flyway ignores future ones).
   *
   * <p>They run on connections of their own, opened by the driver for them and closed after, never the
   * pool's: with the {@link MigrationLimits} of the settings instead of the pool's lock and statement
   * timeouts, so a migration on a large table or behind a running resume's row lock is not cut short.
   * Two workers starting at once migrate once: Flyway holds a PostgreSQL advisory lock (transaction-level,
   * {@code pg_try_advisory_xact_lock}, on a key derived from the schema history table's name) around
   * each migration and reads the history again under it; the other worker tries that lock once a second
   * (docs/upgrades.md "Schema changes"). A check or migration that fails closes this database's pool.
   */
  public Database migrate() {
    try {
      MigrationLimits limits = settings.migration();
      Flyway flyway = Flyway.configure()
          .dataSource(migrationConnections(limits))
          .lockRetryCount(limits.lockTries())
          .schemas(schema)
          .createSchemas(true)
          .locations(migrationLocations(layout, appliedMirrorMigrations(limits)))
          .load();
      SchemaCompatibility.check(flyway, flyway.getConfiguration().getDataSource(), schema);
      if (layout.isKandev()) {
        KandevSchemaCheck.check(dataSource, layout);
      }
      flyway.migrate();
      return this;
    } catch (RuntimeException e) {
      close(); // Database.open(...).migrate() in a try-with-resources: the caller never holds it to close
      throw e;
    }
  }

  /** The migrations of every layout: our own tables only. */
  public static final String COMMON_MIGRATIONS = "classpath:db/migration";
  /** The mirror's: Kandev-named tables of ours (V1, V3, V6–V9) and our tables V1 and V3 create with them. */
  public static final String MIRROR_MIGRATIONS = "classpath:db/mirror";
  /** A fresh kandev-layout schema's instead of the mirror's: only our own tables of V1 and V3 (V2). */
  public static final String KANDEV_LAYOUT_MIGRATIONS = "classpath:db/kandev";

  /**
   * Where the migrations of a schema in {@code layout} are: the common ones and the mirror's, except for
   * a kandev-layout schema that never applied the mirror's V1 (a fresh one), which gets no table with
   * Kandev's names. A kandev-layout schema migrated before keeps the mirror's set it applied (its unused
   * mirror tables can be dropped by hand: docs/upgrades.md); the choice is made once per schema.
   */
  public static String[] migrationLocations(StoreLayout layout, boolean mirrorApplied) {
    return layout.isKandev() && !mirrorApplied
        ? new String[] {COMMON_MIGRATIONS, KANDEV_LAYOUT_MIGRATIONS}
        : new String[] {COMMON_MIGRATIONS, MIRROR_MIGRATIONS};
  }

  /** Whether this schema's history has the mirror's V1 (false for a schema never migrated). */
  private boolean appliedMirrorMigrations(MigrationLimits limits) {
    try (java.sql.Connection c = migrationConnections(limits).getConnection();
        java.sql.PreparedStatement exists = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      exists.setString(1, schema + ".flyway_schema_history");
      try (java.sql.ResultSet r = exists.executeQuery()) {
        r.next();
        if (!r.getBoolean(1)) {
          return false;
        }
      }
      try (java.sql.Statement history = c.createStatement();
          java.sql.ResultSet r = history.executeQuery("SELECT count(*) FROM " + schema
              + ".flyway_schema_history WHERE version = '1' AND success")) {
        r.next();
        return r.getLong(1) > 0;
      }
    } catch (java.sql.SQLException e) {
      throw new StoreException("cannot read the migration history of schema " + schema, e);
    }
  }

  /** A new connection from the driver at each call, with the migration limits as its connection options. */
  private DataSource migrationConnections(MigrationLimits limits) {
    PGSimpleDataSource connections = new PGSimpleDataSource();
    connections.setURL(settings.url());
    connections.setUser(settings.user());
    if (!settings.password().isEmpty()) {
      connections.setPassword(settings.password());
    }
    String given = connections.getOptions();
    connections.setOptions((given == null || given.isBlank() ? "" : given + " ") + limits.connectionOptions());
    connections.setApplicationName(MigrationLimits.APPLICATION_NAME);
    return connections;
  }

  public DataSource dataSource() {
    return dataSource;
  }

  /** Where the stores' operations get their transaction, over this pool. */
  public Transactions transactions() {
    return transactions;
  }

  public String schema() {
    return schema;
  }

  /** Where Kandev's rows are: our mirror in {@link #schema()}, or Kandev's own tables. */
  public StoreLayout layout() {
    return layout;
  }

  @Override
  public void close() {
    dataSource.close();
  }
}
