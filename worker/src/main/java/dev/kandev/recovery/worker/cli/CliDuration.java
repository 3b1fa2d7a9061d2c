package dev.kandev.recovery.worker.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * A command-line duration: whole seconds ({@code 90}), with a unit ({@code 90s}, {@code 15m},
 * {@code 2h}), or ISO-8601 ({@code PT15M}, what the options took before); positive.
 */
public final class CliDuration implements CommandLine.ITypeConverter<Duration> {
  private static final Pattern WITH_UNIT = Pattern.compile("(\\d{1,9})([smh]?)");

  @Override
  public Duration convert(String value) {
    Duration duration = parse(value.trim());
    if (duration.isZero() || duration.isNegative()) {
      throw new CommandLine.TypeConversionException("'" + value + "' is not a positive duration");
    }
    return duration;
  }

  private static Duration parse(String value) {
    Matcher unit = WITH_UNIT.matcher(value);
    if (unit.matches()) {
      long amount = Long.parseLong(unit.group(1));
      return switch (unit.group(2)) {
        case "m" -> Duration.ofMinutes(amount);
        case "h" -> Duration.ofHours(amount);
        default -> Duration.ofSeconds(amount);
      };
    }
    try {
      return Duration.parse(value);
    } catch (DateTimeParseException e) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a duration: use seconds (90), 90s, 15m, 2h or ISO-8601 (PT15M)");
    }
  }

  /** As the options take it: {@code 15s}, {@code 10m}, {@code 2h}. */
  static String format(Duration duration) {
    long seconds = duration.toSeconds();
    return seconds % 3600 == 0 ? seconds / 3600 + "h" : seconds % 60 == 0 ? seconds / 60 + "m" : seconds + "s";
  }
}
