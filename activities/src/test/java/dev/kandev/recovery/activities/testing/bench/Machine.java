package dev.kandev.recovery.activities.testing.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** The facts a figure means nothing without: cores, JVM, PostgreSQL. */
public final class Machine {
  private Machine() {}

  public static String describe(DataSource dataSource) {
    return describe() + ", PostgreSQL " + postgresVersion(dataSource);
  }

  public static String describe() {
    return Runtime.getRuntime().availableProcessors() + " cores, Java " + System.getProperty("java.vm.version")
        + " (" + System.getProperty("java.vm.name") + ")";
  }

  private static String postgresVersion(DataSource dataSource) {
    try (Connection c = dataSource.getConnection();
        Statement statement = c.createStatement();
        ResultSet rs = statement.executeQuery("SHOW server_version")) {
      rs.next();
      return rs.getString(1);
    } catch (SQLException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }
}
