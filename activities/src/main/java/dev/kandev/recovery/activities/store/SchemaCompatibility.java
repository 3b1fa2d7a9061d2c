package dev.kandev.recovery.activities.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.flywaydb.core.api.MigrationVersion;

/**
 * Whether this worker may run on the schema as it is: a schema a newer release migrated is fine as
 * long as its {@code schema_compatibility.oldest_compatible_version} (V10) is not above the newest
 * migration this worker knows. Checked before migrating, so a refused worker changes nothing.
 */
public final class SchemaCompatibility {
  private SchemaCompatibility() {}

  /** Throws {@link IncompatibleSchemaException} when the schema needs a newer worker than {@code flyway}'s migrations make. */
  public static void check(Flyway flyway, DataSource dataSource, String schema) {
    Optional<Integer> oldest = oldestCompatible(dataSource, schema);
    if (oldest.isEmpty()) {
      return; // a new schema, or one no release with the marker migrated yet
    }
    MigrationInfoService info = flyway.info();
    MigrationVersion known = Arrays.stream(info.all())
        .filter(m -> m.getVersion() != null && m.getState().isResolved())
        .map(MigrationInfo::getVersion)
        .max(MigrationVersion::compareTo)
        .orElse(MigrationVersion.EMPTY);
    if (MigrationVersion.fromVersion(String.valueOf(oldest.get())).compareTo(known) > 0) {
      MigrationInfo current = info.current();
      throw new IncompatibleSchemaException("schema " + schema + " is at migration "
          + (current == null ? "?" : current.getVersion()) + " and needs a worker that knows migration " + oldest.get()
          + " or later, but this worker knows migrations up to " + known
          + ": run that newer release (docs/upgrades.md)");
    }
  }

  private static Optional<Integer> oldestCompatible(DataSource dataSource, String schema) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement exists = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      exists.setString(1, schema + ".schema_compatibility");
      try (ResultSet r = exists.executeQuery()) {
        r.next();
        if (!r.getBoolean(1)) {
          return Optional.empty();
        }
      }
      try (PreparedStatement read = c.prepareStatement(
              "SELECT oldest_compatible_version FROM " + schema + ".schema_compatibility");
          ResultSet r = read.executeQuery()) {
        return r.next() ? Optional.of(r.getInt(1)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new StoreException("could not read the schema's compatibility marker", e);
    }
  }
}
