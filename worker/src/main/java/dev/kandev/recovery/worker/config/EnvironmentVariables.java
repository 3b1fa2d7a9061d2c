package dev.kandev.recovery.worker.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * Typed reads of the worker's environment variables for {@link Settings}: a blank value counts as
 * unset, and a bad value is an {@link IllegalArgumentException} naming the variable, the value and
 * what is expected. Durations are whole seconds ({@code _SECONDS}); a variable renamed to its
 * {@code _SECONDS} name still works under its old name, with a deprecation warning.
 */
public final class EnvironmentVariables {
  private final Map<String, String> env;
  private final Consumer<String> warnings;

  EnvironmentVariables(Map<String, String> env, Consumer<String> warnings) {
    this.env = env;
    this.warnings = warnings;
  }

  /** The raw map, for readers that take one (Temporal's envconfig) and for picking inherited variables. */
  Map<String, String> all() {
    return env;
  }

  Optional<String> text(String name) {
    String value = env.get(name);
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }

  String text(String name, String fallback) {
    return text(name).orElse(fallback);
  }

  /** The value as it is (not trimmed): a password may begin or end with a space. */
  String verbatim(String name, String fallback) {
    String value = env.get(name);
    return value == null ? fallback : value;
  }

  int integer(String name, int fallback) {
    return text(name).map(value -> parseInt(name, value, "a whole number")).orElse(fallback);
  }

  int atLeast(String name, int minimum, int fallback) {
    int value = integer(name, fallback);
    if (value < minimum) {
      throw new IllegalArgumentException(name + " must be at least " + minimum + ", got " + value);
    }
    return value;
  }

  boolean bool(String name, boolean fallback) {
    return text(name).map(value -> switch (value.toLowerCase(java.util.Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(name + " must be true or false, got '" + value + "'");
    }).orElse(fallback);
  }

  /** A TCP port (0: any free one), or empty when the variable is unset. */
  OptionalInt port(String name) {
    Optional<String> value = text(name);
    if (value.isEmpty()) {
      return OptionalInt.empty();
    }
    int port = parseInt(name, value.get(), "a port (0 to 65535)");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(name + " must be a port (0 to 65535), got " + port);
    }
    return OptionalInt.of(port);
  }

  /** A whole number of seconds between {@code minimum} and {@code maximum}. */
  Duration seconds(String name, Duration fallback, Duration minimum, Duration maximum) {
    Optional<String> value = text(name);
    if (value.isEmpty()) {
      return fallback;
    }
    return within(name, Duration.ofSeconds(parseInt(name, value.get(), "a whole number of seconds")), minimum, maximum);
  }

  /** A whole number of at least one second. */
  Duration positiveSeconds(String name, Duration fallback) {
    return seconds(name, fallback, Duration.ofSeconds(1), null);
  }

  /**
   * {@code name} (whole seconds), else its deprecated former name {@code oldName} in the old format
   * ({@code oldFormat} says which, {@code parseOld} reads it) with a warning; both set is refused.
   */
  Duration renamedSeconds(String name, String oldName, String oldFormat, OldFormat parseOld, Duration fallback,
      Duration minimum, Duration maximum) {
    Optional<String> old = text(oldName);
    if (old.isEmpty()) {
      return seconds(name, fallback, minimum, maximum);
    }
    if (text(name).isPresent()) {
      throw new IllegalArgumentException(
          "both " + name + " and its deprecated former name " + oldName + " are set: set only " + name);
    }
    Duration value;
    try {
      value = parseOld.parse(old.get());
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new IllegalArgumentException(oldName + " must be " + oldFormat + ", got '" + old.get() + "'");
    }
    within(oldName, value, minimum, maximum);
    warnings.accept(oldName + " is deprecated and will be removed: set " + name + "=" + value.toSeconds()
        + " instead (durations are whole seconds)");
    return value;
  }

  /** How a deprecated duration variable was written. */
  interface OldFormat {
    Duration parse(String value);
  }

  private static Duration within(String name, Duration value, Duration minimum, Duration maximum) {
    if (value.compareTo(minimum) < 0) {
      throw new IllegalArgumentException(name + " must be at least " + minimum.toSeconds() + " (seconds), got "
          + value.toSeconds());
    }
    if (maximum != null && value.compareTo(maximum) > 0) {
      throw new IllegalArgumentException(name + " must be at most " + maximum.toSeconds() + " (seconds), got "
          + value.toSeconds());
    }
    return value;
  }

  private static int parseInt(String name, String value, String expected) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be " + expected + ", got '" + value + "'");
    }
  }
}
