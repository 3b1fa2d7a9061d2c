package dev.kandev.recovery.activities.store.kandev;

import dev.kandev.recovery.activities.store.StoreLayout;

/**
 * SQL on Kandev's own tables, in the schema of the {@link StoreLayout}: {@code {k}.} in a statement
 * names that schema; our own tables stay unqualified (the pool's search path is our schema).
 */
final class KandevTables {
  /** Kandev's timestamps: the UTC wall clock in a naive {@code timestamp}, supplied by the writer. */
  static final String UTC_NOW = "(now() AT TIME ZONE 'UTC')";

  private final String schema;

  KandevTables(StoreLayout layout) {
    if (!layout.isKandev()) {
      throw new IllegalArgumentException("Kandev's tables are only used in the kandev layout, not " + layout.kind());
    }
    this.schema = layout.kandevSchema();
  }

  /** {@code statement} with {@code {k}.} naming Kandev's schema. */
  String sql(String statement) {
    return statement.replace("{k}.", schema + ".");
  }

  /**
   * SQL: the metadata of row {@code alias} as {@code jsonb}; Kandev keeps it as text, where {@code ''}
   * and {@code 'null'} (and SQL NULL) mean an empty object, as Kandev's own writers treat them.
   */
  static String metadata(String alias) {
    return "(CASE WHEN " + alias + ".metadata IS NULL OR " + alias + ".metadata IN ('null', '') THEN '{}'::jsonb"
        + " ELSE " + alias + ".metadata::jsonb END)";
  }
}
