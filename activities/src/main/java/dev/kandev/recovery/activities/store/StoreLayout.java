package dev.kandev.recovery.activities.store;

import java.util.regex.Pattern;

/**
 * Where the session store keeps Kandev's rows: in our own mirror of Kandev's tables (in our schema,
 * created by our migrations) or in Kandev's own tables, as Kandev's Go code creates them, in {@code
 * kandevSchema} (docs/kandev.md). Everything else of ours stays in our schema in both layouts.
 *
 * @param kandevSchema the schema holding Kandev's tables; only read in the {@link Kind#KANDEV} layout
 */
public record StoreLayout(Kind kind, String kandevSchema) {
  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
  public static final String DEFAULT_KANDEV_SCHEMA = "public";
  public static final StoreLayout MIRROR = new StoreLayout(Kind.MIRROR, DEFAULT_KANDEV_SCHEMA);

  public enum Kind {
    /** Our own copy of Kandev's tables, in our schema (the embedded default of {@code dev}). */
    MIRROR,
    /** Kandev's own tables in {@link #kandevSchema}; we never change their definition. */
    KANDEV
  }

  public StoreLayout {
    if (kind == null) {
      throw new IllegalArgumentException("a store layout needs a kind");
    }
    if (kandevSchema == null || !IDENTIFIER.matcher(kandevSchema).matches()) {
      throw new IllegalArgumentException("KANDEV_KANDEV_SCHEMA must be a lowercase SQL identifier, got '" + kandevSchema + "'");
    }
  }

  public static StoreLayout kandev(String kandevSchema) {
    return new StoreLayout(Kind.KANDEV, kandevSchema);
  }

  /** {@code mirror} or {@code kandev}, as {@code KANDEV_STORE_LAYOUT} says it. */
  public static StoreLayout parse(String layout, String kandevSchema) {
    return switch (layout) {
      case "mirror" -> new StoreLayout(Kind.MIRROR, kandevSchema);
      case "kandev" -> new StoreLayout(Kind.KANDEV, kandevSchema);
      default -> throw new IllegalArgumentException("KANDEV_STORE_LAYOUT must be mirror or kandev, got '" + layout + "'");
    };
  }

  public boolean isKandev() {
    return kind == Kind.KANDEV;
  }

  /** SQL naming the table Kandev calls {@code name} in this layout: Kandev's own, or our mirror's. */
  public String kandevTable(String name) {
    return isKandev() ? kandevSchema + "." + name : name;
  }
}
