package dev.kandev.recovery.worker.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.store.DatabaseSettings;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** What {@code /readyz} says of a store that does not answer: its URL as SafeUrl shows it, the driver's text masked. */
class ReadinessTest {
  private static final String URL = "jdbc:postgresql://127.0.0.1:1/kandev?password=QuerySecret-41&sslmode=disable";
  private static final DatabaseSettings STORE = new DatabaseSettings(URL, "kandev", "PlainSecret-17", "s", 1);
  private final WorkflowServiceStubs temporal = WorkflowServiceStubs.newServiceStubs(
      WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:1").build());

  @AfterEach
  void close() {
    temporal.shutdownNow();
  }

  @Test
  void aRefusedConnectionOfTheRealDriverIsNamedByTheMaskedUrl() {
    PGSimpleDataSource driver = new PGSimpleDataSource();
    driver.setUrl(URL);

    List<String> problems = new Readiness(driver, STORE, temporal, "127.0.0.1:1").problems();

    assertThat(problems).anySatisfy(p -> assertThat(p)
        .startsWith("PostgreSQL at jdbc:postgresql://127.0.0.1:1/kandev?password=***&sslmode=*** unreachable: "));
    assertThat(String.join("\n", problems)).doesNotContain("QuerySecret-41", "PlainSecret-17");
  }

  /** Some drivers repeat the URL they were given, and a password, in their message. */
  @Test
  void aDriverMessageThatRepeatsTheUrlOrThePasswordIsShownMasked() {
    DataSource echoing = new FailingDataSource(
        "cannot connect to " + URL + " as kandev with password PlainSecret-17\nsecond line QuerySecret-41");

    List<String> problems = new Readiness(echoing, STORE, temporal, "127.0.0.1:1").problems();

    assertThat(problems).anySatisfy(p -> assertThat(p).contains("unreachable: cannot connect to *** as kandev with password ***"));
    assertThat(String.join("\n", problems)).doesNotContain("QuerySecret-41", "PlainSecret-17", "second line");
  }

  private record FailingDataSource(String message) implements DataSource {
    @Override
    public Connection getConnection() throws SQLException {
      throw new SQLException(message, "08001");
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() {
      return Logger.getGlobal();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return false;
    }
  }
}
