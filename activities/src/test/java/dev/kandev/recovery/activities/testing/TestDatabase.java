package dev.kandev.recovery.activities.testing;

import dev.kandev.recovery.activities.store.Database;
import dev.kandev.recovery.activities.store.DatabaseSettings;
import dev.kandev.recovery.activities.store.StoreLayout;
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
import org.postgresql.ds.PGSimpleDataSource;

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
  private final StoreLayout.Kind layout;
  private final boolean kandevReference;
  private Database database;
  private String kandevSchema;

  /** Schemas on the PostgreSQL of {@link #URL}. */
  public TestDatabase() {
    this(() -> URL);
  }

  /** Schemas on the PostgreSQL at {@code url} (as {@link #USER}), asked for before each test. */
  public TestDatabase(Supplier<String> url) {
    this(url, StoreLayout.Kind.MIRROR);
  }

  /**
   * Schemas on the PostgreSQL of {@link #URL} in {@code layout}: for {@link StoreLayout.Kind#KANDEV}
   * also a schema of Kandev's own tables, made from the fixture {@link KandevSchemaFixture}.
   */
  public TestDatabase(StoreLayout.Kind layout) {
    this(() -> URL, layout);
  }

  /** Schemas on the PostgreSQL at {@code url} in {@code layout} (a campaign's PostgreSQL of its own). */
  public TestDatabase(Supplier<String> url, StoreLayout.Kind layout) {
    this(url, layout, false);
  }

  private TestDatabase(Supplier<String> url, StoreLayout.Kind layout, boolean kandevReference) {
    this.url = url;
    this.layout = layout;
    this.kandevReference = kandevReference;
  }

  /**
   * The kandev layout on Kandev's own DDL as its backend creates it ({@code ../shared/reference/
   * kandev-schema-cd9fa0e.sql}, read, never copied); a test is skipped where that file is absent.
   */
  public static TestDatabase onKandevsSchema() {
    return new TestDatabase(() -> URL, StoreLayout.Kind.KANDEV, true);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    String schema = "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    StoreLayout storeLayout = StoreLayout.MIRROR;
    if (layout == StoreLayout.Kind.KANDEV) {
      kandevSchema = "k" + schema.substring(1);
      if (kandevReference) {
        java.util.Optional<java.nio.file.Path> dump = KandevSchemaFixture.reference();
        org.junit.jupiter.api.Assumptions.assumeTrue(dump.isPresent(),
            "Kandev's DDL " + KandevSchemaFixture.REFERENCE_FILE + " is not beside this repository");
        KandevSchemaFixture.createFromReference(url.get(), USER, kandevSchema, dump.get());
      } else {
        KandevSchemaFixture.create(url.get(), USER, kandevSchema);
      }
      storeLayout = StoreLayout.kandev(kandevSchema);
    }
    database = Database.open(new DatabaseSettings(url.get(), USER, "", schema, 24, storeLayout)).migrate();
  }

  @Override
  public void afterEach(ExtensionContext context) throws SQLException {
    if (database == null) {
      return; // skipped before it was made
    }
    try (Connection c = database.dataSource().getConnection();
        Statement drop = c.createStatement()) {
      drop.execute("DROP SCHEMA " + database.schema() + " CASCADE");
      if (kandevSchema != null) {
        drop.execute("DROP SCHEMA " + kandevSchema + " CASCADE");
      }
    } finally {
      database.close();
    }
  }

  /** The JDBC URL of the server this test's schema is on. */
  public String url() {
    return url.get();
  }

  /** The layout of this test's store. */
  public StoreLayout layout() {
    return database.layout();
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
    if (!database.layout().isKandev()) {
      return new Fixtures(database.dataSource());
    }
    PGSimpleDataSource kandevFirst = new PGSimpleDataSource();
    kandevFirst.setUrl(url.get());
    kandevFirst.setUser(USER);
    kandevFirst.setCurrentSchema(kandevSchema + "," + database.schema());
    return new Fixtures(kandevFirst, database.layout());
  }
}
