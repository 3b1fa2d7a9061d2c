package dev.kandev.recovery.activities.testing;

import dev.kandev.recovery.activities.store.Database;
import dev.kandev.recovery.activities.store.DatabaseSettings;
import dev.kandev.recovery.activities.store.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh, migrated schema in the local PostgreSQL for each test, dropped afterwards. Use as
 * {@code @RegisterExtension final TestDatabase db = new TestDatabase();}. The server is the one of
 * {@code KANDEV_TEST_DB_URL} (default: the local PostgreSQL, database {@code postgres}).
 */
public final class TestDatabase implements BeforeEachCallback, AfterEachCallback {
  public static final String URL =
      System.getenv().getOrDefault("KANDEV_TEST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/postgres");
  public static final String USER = System.getenv().getOrDefault("KANDEV_TEST_DB_USER", "postgres");

  private final Supplier<String> url;
  private Database database;

  /** Schemas on the PostgreSQL of {@link #URL}. */
  public TestDatabase() {
    this(() -> URL);
  }

  /** Schemas on the PostgreSQL at {@code url} (as {@link #USER}), asked for before each test. */
  public TestDatabase(Supplier<String> url) {
    this.url = url;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    String schema = "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    database = Database.open(new DatabaseSettings(url.get(), USER, "", schema, 24)).migrate();
  }

  @Override
  public void afterEach(ExtensionContext context) throws SQLException {
    try (Connection c = database.dataSource().getConnection();
        Statement drop = c.createStatement()) {
      drop.execute("DROP SCHEMA " + database.schema() + " CASCADE");
    } finally {
      database.close();
    }
  }

  /** The JDBC URL of the server this test's schema is on. */
  public String url() {
    return url.get();
  }

  public Database database() {
    return database;
  }

  public DataSource dataSource() {
    return database.dataSource();
  }

  /** Where store operations get their transaction. */
  public Transactions transactions() {
    return database.transactions();
  }

  /** Runs store operations in one transaction (what a test does in one step). */
  public <T> T tx(Transactions.Work<T> work) {
    return database.transactions().inTransaction("test step", work);
  }

  /** {@link #tx} of operations that return nothing. */
  public void run(Transactions.VoidWork work) {
    database.transactions().run("test step", work);
  }

  public Fixtures fixtures() {
    return new Fixtures(database.dataSource());
  }
}
