package dev.kandev.recovery.worker.harness;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/** One answer of {@code /metrics} in Prometheus' text format: its samples by series. */
public record Scrape(Map<String, Double> samples) {
  public static Scrape parse(String text) {
    Map<String, Double> samples = new LinkedHashMap<>();
    text.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).forEach(l -> {
      int space = l.lastIndexOf(' ');
      samples.put(l.substring(0, space), Double.parseDouble(l.substring(space + 1)));
    });
    return new Scrape(samples);
  }

  /** The metric names served (a histogram's {@code _bucket}, {@code _count}, … each). */
  public Set<String> names() {
    Set<String> names = new TreeSet<>();
    samples.keySet().forEach(series -> names.add(name(series)));
    return names;
  }

  /** The sum of the samples of {@code metric} whose labels include all of {@code labels}. */
  public double value(String metric, String... labels) {
    return samples.entrySet().stream()
        .filter(e -> name(e.getKey()).equals(metric))
        .filter(e -> Stream.of(labels).allMatch(e.getKey()::contains))
        .mapToDouble(Map.Entry::getValue)
        .sum();
  }

  public static String name(String series) {
    int brace = series.indexOf('{');
    return brace < 0 ? series : series.substring(0, brace);
  }
}
