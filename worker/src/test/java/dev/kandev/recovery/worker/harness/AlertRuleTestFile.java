package dev.kandev.recovery.worker.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A {@code promtool test rules} file whose input is what a real process served: its series as one
 * scrape showed them for the first minutes, then as a later scrape did (and so on, one {@link Phase}
 * after the other), one sample a minute, as Prometheus would have scraped them from target {@code
 * instance}.
 */
public final class AlertRuleTestFile {
  /** The scrape before is sampled at 0..BEFORE-1 min, the scrape after from BEFORE min on. */
  public static final int BEFORE = 3;
  private static final int SAMPLES = 15;
  private static final List<String> FAMILIES =
      List.of("kandev_", "hikaricp_", "temporal_workflow_task_", "temporal_activity_schedule_to_start_");

  private final List<String> checks = new ArrayList<>();
  private final List<Phase> phases;
  private final String instance;

  /** What one scrape served, sampled for {@code minutes} minutes. */
  public record Phase(Scrape scrape, int minutes) {}

  /** {@code before} for minutes 0..BEFORE-1, {@code after} from BEFORE min on. */
  public AlertRuleTestFile(Scrape before, Scrape after, String instance) {
    this(List.of(new Phase(before, BEFORE), new Phase(after, SAMPLES - BEFORE)), instance);
  }

  /** Each phase's scrape for its minutes, one after the other from minute 0. */
  public AlertRuleTestFile(List<Phase> phases, String instance) {
    this.phases = List.copyOf(phases);
    this.instance = instance;
  }

  /**
   * At {@code minute}, exactly the alerts {@code firing} (each: its labels besides alertname and
   * alertstate, e.g. {@code alertname="X", failure_type="Y", severity="page"} in PromQL's notation)
   * fire among those named by the regex {@code alertnames}.
   */
  public AlertRuleTestFile expect(int minute, String alertnames, List<String> firing) {
    StringBuilder check = new StringBuilder()
        .append("      - expr: 'ALERTS{alertname=~\"").append(alertnames).append("\"}'\n")
        .append("        eval_time: ").append(minute).append("m\n")
        .append("        exp_samples:").append(firing.isEmpty() ? " []\n" : "\n");
    for (String labels : firing) {
      check.append("          - labels: 'ALERTS{alertstate=\"firing\", ").append(labels.replace("'", "''")).append("}'\n")
          .append("            value: 1\n");
    }
    checks.add(check.toString());
    return this;
  }

  /** Writes the test file into {@code dir} and runs promtool on it. */
  public Promtool.Result run(Path dir) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path file = dir.resolve("kandev-alerts-test.yml");
    Files.writeString(file, yaml());
    return Promtool.run("test", "rules", file.toString());
  }

  public String yaml() {
    StringBuilder yaml = new StringBuilder()
        .append("rule_files:\n  - ").append(Promtool.RULES).append('\n')
        .append("evaluation_interval: 1m\n")
        .append("tests:\n  - interval: 1m\n    input_series:\n");
    Set<String> series = new LinkedHashSet<>();
    phases.forEach(phase -> series.addAll(phase.scrape().samples().keySet()));
    for (String s : series) {
      if (FAMILIES.stream().noneMatch(Scrape.name(s)::startsWith)) {
        continue;
      }
      StringBuilder values = new StringBuilder();
      for (Phase phase : phases) {
        for (int minute = 0; minute < phase.minutes(); minute++) {
          Double value = phase.scrape().samples().get(s);
          values.append(values.length() == 0 ? "" : " ").append(value == null || value.isNaN() ? "_" : value.toString());
        }
      }
      yaml.append("      - series: '").append(withInstance(s).replace("'", "''")).append("'\n")
          .append("        values: '").append(values).append("'\n");
    }
    yaml.append("    promql_expr_test:\n");
    checks.forEach(yaml::append);
    return yaml.toString();
  }

  private String withInstance(String series) {
    String labels = "instance=\"" + instance + "\", job=\"kandev-recovery\"";
    int brace = series.indexOf('{');
    return brace < 0 ? series + "{" + labels + "}" : series.substring(0, brace + 1) + labels + ", " + series.substring(brace + 1);
  }
}
