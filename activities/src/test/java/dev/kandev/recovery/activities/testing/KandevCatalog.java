package dev.kandev.recovery.activities.testing;

/**
 * The catalog of Kandev's tables in one schema as text — columns with types, defaults and
 * nullability, constraints, triggers and indexes — to compare before and after a run that must
 * leave Kandev's definitions alone.
 */
public final class KandevCatalog {
  private KandevCatalog() {}

  public static String of(Fixtures fixtures, String schema) {
    return String.join("\n", fixtures.strings(
        "SELECT 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)"
            + " || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END"
            + " || COALESCE(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')"
            + " || COALESCE(' COLLATE ' || NULLIF(co.collname, 'default'), '')"
            + " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
            + " LEFT JOIN pg_collation co ON co.oid = a.attcollation"
            + " WHERE n.nspname = ? AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped"
            + " UNION ALL SELECT 'constraint ' || c.relname || '.' || k.conname || ' ' || pg_get_constraintdef(k.oid)"
            + " FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " WHERE n.nspname = ?"
            + " UNION ALL SELECT 'trigger ' || c.relname || '.' || t.tgname || ' ' || pg_get_triggerdef(t.oid)"
            + " FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " WHERE n.nspname = ?"
            + " UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = ?"
            + " UNION ALL SELECT 'relation ' || c.relname || ' ' || c.relkind::text FROM pg_class c"
            + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ?"
            + " ORDER BY 1", schema, schema, schema, schema, schema));
  }
}
