package dev.kandev.recovery.activities.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.stream.Collectors;

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

  /** Kandev's own DDL at cd9fa0e (pg_dump of a booted Kandev), read from the shared reference, never copied here. */
  public static final String REFERENCE_FILE = "shared/reference/kandev-schema-cd9fa0e.sql";

  /**
   * The shared reference's DDL, found as {@code ../shared} of the repository (the first ancestor of the
   * working directory that holds {@value #REFERENCE_FILE}); empty where it is not (a clone alone).
   */
  public static Optional<Path> reference() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve(REFERENCE_FILE);
      if (Files.isRegularFile(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /**
   * Creates {@code schema} and Kandev's tables in it from the reference dump: its psql meta-commands
   * and its empty search path left out, {@code public.} renamed to {@code schema}.
   */
  public static void createFromReference(String url, String user, String schema, Path dump) {
    String ddl;
    try {
      ddl = Files.readAllLines(dump, StandardCharsets.UTF_8).stream()
          .filter(line -> !line.startsWith("\\") && !line.contains("set_config('search_path'"))
          .map(line -> line.replaceAll("\\bpublic\\.", schema + "."))
          .collect(Collectors.joining("\n"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (Connection c = DriverManager.getConnection(url, user, "");
        Statement statement = c.createStatement()) {
      statement.execute("CREATE SCHEMA " + schema);
      statement.execute(ddl);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create Kandev's tables of " + dump + " in schema " + schema, e);
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
