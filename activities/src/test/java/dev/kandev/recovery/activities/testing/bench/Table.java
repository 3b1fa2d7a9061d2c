package dev.kandev.recovery.activities.testing.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A benchmark's figures as a fixed-width table, printed to stdout with the machine facts. */
public final class Table {
  private final String title;
  private final String rateUnit;
  private final List<String> rows = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();

  /** @param rateUnit what the rate column counts per second, e.g. "ops/s" */
  public Table(String title, String rateUnit) {
    this.title = title;
    this.rateUnit = rateUnit;
  }

  public Table row(String name, Load.Result result) {
    return row(name, result.operations(), result.perSecond(), result.latencies());
  }

  /** @param perSecond the rate, or NaN for a row that only splits another row's latency */
  public Table row(String name, int count, double perSecond, Latencies latencies) {
    String rate = Double.isNaN(perSecond) ? "-" : String.format(Locale.ROOT, "%.1f", perSecond);
    rows.add(String.format(Locale.ROOT, "| %-44s | %6d | %9s | %9.2f | %9.2f | %9.2f |",
        name, count, rate, latencies.medianMillis(), latencies.p95Millis(), latencies.maxMillis()));
    return this;
  }

  public Table note(String line) {
    notes.add(line);
    return this;
  }

  public void print(String machine) {
    PrintStream out = System.out;
    out.println();
    out.println("== " + title + " ==");
    out.println("machine: " + machine);
    out.println(String.format(Locale.ROOT, "| %-44s | %6s | %9s | %9s | %9s | %9s |",
        "case", "n", rateUnit, "median ms", "p95 ms", "max ms"));
    out.println("|" + "-".repeat(46) + "|" + "-".repeat(8) + "|" + ("-".repeat(11) + "|").repeat(4));
    rows.forEach(out::println);
    notes.forEach(note -> out.println("  " + note));
    out.flush();
  }
}
