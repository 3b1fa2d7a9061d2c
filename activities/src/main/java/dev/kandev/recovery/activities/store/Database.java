package dev.kandev.recovery.activities.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/** The PostgreSQL connection pool and schema migrations of one store schema. */
public final class Database implements AutoCloseable {
  private final HikariDataSource dataSource;
  private final String schema;
  private final Transactions transactions;

  private Database(HikariDataSource dataSource, String schema) {
    this.dataSource = dataSource;
    this.schema = schema;
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
    return new Database(new HikariDataSource(config), settings.schema());
  }

  /** Creates the schema if needed and applies the migrations under {@code db/migration}. */
  public Database migrate() {
    Flyway.configure()
        .dataSource(dataSource)
        .schemas(schema)
        .createSchemas(true)
        .locations("classpath:db/migration")
        .load()
        .migrate();
    return this;
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

  @Override
  public void close() {
    dataSource.close();
  }
}
