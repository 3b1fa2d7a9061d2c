package dev.kandev.recovery.activities.store.kandev;

import dev.kandev.recovery.activities.testing.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A schema of its own holding the columns of Kandev's tables that its events read
 * ({@code kandev-bus/kandev-event-columns.sql}), beside the test's own schema of {@code db}; dropped afterwards.
 */
public final class KandevEventColumns implements BeforeEachCallback, AfterEachCallback {
  private final TestDatabase db;
  private String schema;

  public KandevEventColumns(TestDatabase db) {
    this.db = db;
  }

  public String schema() {
    return schema;
  }

  /** {@code table} of the fixture, qualified. */
  public String table(String table) {
    return schema + "." + table;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    schema = "kb_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    String ddl = resource("/kandev-bus/kandev-event-columns.sql");
    db.run((Handle h) -> {
      h.execute("CREATE SCHEMA " + schema);
      h.execute("SET LOCAL search_path TO " + schema);
      h.createScript(ddl).execute();
    });
  }

  @Override
  public void afterEach(ExtensionContext context) {
    db.run((Handle h) -> h.execute("DROP SCHEMA " + schema + " CASCADE"));
  }

  private static String resource(String name) {
    try (InputStream in = KandevEventColumns.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
