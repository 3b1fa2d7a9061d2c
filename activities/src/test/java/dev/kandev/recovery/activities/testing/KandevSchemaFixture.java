package dev.kandev.recovery.activities.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Kandev's own tables as Kandev creates them on PostgreSQL (test resource {@code
 * kandev/kandev-schema.sql}, written from the facts in the shared reference), in a schema of their
 * own: what the "kandev" store layout runs on in the tests.
 */
public final class KandevSchemaFixture {
  public static final String RESOURCE = "/kandev/kandev-schema.sql";

  private KandevSchemaFixture() {}

  /** Creates {@code schema} on the server at {@code url} and Kandev's tables in it. */
  public static void create(String url, String user, String schema) {
    try (Connection c = DriverManager.getConnection(url, user, "");
        Statement statement = c.createStatement()) {
      statement.execute("CREATE SCHEMA " + schema);
      statement.execute("SET search_path TO " + schema);
      statement.execute(ddl());
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create Kandev's tables in schema " + schema, e);
    }
  }

  /** The fixture's SQL. */
  public static String ddl() {
    try (InputStream in = KandevSchemaFixture.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is not on the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
