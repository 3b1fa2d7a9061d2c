package dev.kandev.recovery.worker.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.worker.harness.Promtool;
import org.junit.jupiter.api.Test;

/** deploy/prometheus/kandev-alerts.yml is a valid rules file (its expressions parse, its templates too). */
class AlertRulesTest {
  @Test
  void promtoolAcceptsTheAlertRules() throws Exception {
    Promtool.Result check = Promtool.run("check", "rules", Promtool.RULES.toString());

    assertThat(check.exitCode()).as(check.output()).isZero();
    assertThat(check.output()).contains("SUCCESS: 8 rules found");
  }
}
