package dev.kandev.recovery.activities.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.model.AgentFailureClass;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What of an agent's stderr reaches a launch failure, and so the workflow's history. */
class DiagnosticTailTest {
  @Test
  void masksTheEnvironmentsSecretsAndCredentialsOfAKnownShape() {
    String tail = String.join("\n",
        "env KANDEV_GIT_TOKEN=lease-secret-value-1234",
        "git: using ghs_16C7e42F292c6912E7710c838347Ae178B4a and github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.payload.signature",
        "fetch https://x-access-token:s3cr3t-pass@github.com/acme/repo.git",
        "-----BEGIN RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA", "-----END RSA PRIVATE KEY-----",
        "exiting: cannot load session");

    String shown = DiagnosticTail.of(tail, List.of("lease-secret-value-1234"));

    assertThat(shown).doesNotContain("lease-secret-value-1234", "ghs_16C7e42F", "github_pat_11ABC", "eyJhbGciOiJSUzI1NiJ9",
        "s3cr3t-pass", "MIIEowIBAAKCAQEA");
    assertThat(shown).contains("KANDEV_GIT_TOKEN=***", "Bearer ***", "https://***@github.com/acme/repo.git",
        "exiting: cannot load session");
  }

  @Test
  void keepsTheLastCharactersOnly() {
    StringBuilder tail = new StringBuilder();
    for (int i = 0; i < 500; i++) {
      tail.append("line ").append(i).append(" of a chatty agent\n");
    }
    tail.append("fatal: the reason it exits");

    String shown = DiagnosticTail.of(tail.toString(), List.of());

    assertThat(shown.length()).isLessThanOrEqualTo(DiagnosticTail.MAX_CHARS + 60);
    assertThat(shown).startsWith("[… ").contains("earlier characters left out]\nline ")
        .endsWith("fatal: the reason it exits").doesNotContain("line 0 of");
  }

  @Test
  void aLaunchFailuresDescriptionDoesNotRepeatItsType() {
    AgentLaunchException e = new AgentLaunchException(
        AgentFailureClass.AGENT_SESSION_LOAD_REJECTED, "session/load of ses_1 refused", 1, "", "-32000 unknown session", null);

    assertThat(e.getMessage()).startsWith("AGENT_SESSION_LOAD_REJECTED: session/load of ses_1 refused");
    assertThat(e.description()).startsWith("session/load of ses_1 refused").doesNotContain("AGENT_SESSION_LOAD_REJECTED");
  }
}
