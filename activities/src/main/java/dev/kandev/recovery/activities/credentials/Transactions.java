package dev.kandev.recovery.activities.credentials;

import dev.kandev.recovery.activities.store.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** One unit of JDBC work in one transaction; SQL failures become a (retryable) {@link StoreException}. */
final class Transactions {
  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  private Transactions() {}

  static <T> T run(DataSource dataSource, String what, Work<T> work) {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      try {
        T result = work.run(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new StoreException(what + " failed: " + e.getMessage(), e);
    }
  }
}
