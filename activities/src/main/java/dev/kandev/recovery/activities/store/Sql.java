package dev.kandev.recovery.activities.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** Runs a unit of JDBC work in one transaction; SQL failures become a (retryable) {@link StoreException}. */
public final class Sql {
  @FunctionalInterface
  public interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  private Sql() {}

  public static <T> T inTransaction(DataSource dataSource, String what, Work<T> work) {
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

  /** The first column of every row the (bound) query returns. */
  static List<String> firstColumn(PreparedStatement query) throws SQLException {
    List<String> values = new ArrayList<>();
    try (ResultSet rs = query.executeQuery()) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    }
    return values;
  }

  /** The SQL predicate that a fenced write adds; binds the fencing token twice. */
  static final String FENCE_PREDICATE =
      "(?::bigint < 0 OR EXISTS (SELECT 1 FROM resume_locks l WHERE l.session_id = s.id AND l.fencing_token = ?))";
}
