package dev.kandev.recovery.activities.credentials;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.failure.ApplicationErrorCategory;
import io.temporal.failure.ApplicationFailure;
import org.junit.jupiter.api.Test;

class CredentialFailuresTest {
  @Test
  void typeAndRetryabilityCarryOverAndNoCauseIsAttached() {
    ApplicationFailure terminal = CredentialFailures.toApplicationFailure(CredentialException.sessionTerminal("s1", "FAILED"));
    ApplicationFailure unavailable =
        CredentialFailures.toApplicationFailure(CredentialException.providerUnavailable("GitHub answered 502", null));

    assertThat(terminal.getType()).isEqualTo("CREDENTIAL_SESSION_TERMINAL");
    assertThat(terminal.isNonRetryable()).isTrue();
    assertThat(terminal.getOriginalMessage()).contains("session is terminal");
    assertThat(terminal.getCause()).isNull();
    assertThat(unavailable.getType()).isEqualTo("CREDENTIAL_PROVIDER_UNAVAILABLE");
    assertThat(unavailable.isNonRetryable()).isFalse();
  }

  @Test
  void aClassifiedRefusalIsExpectedAndAnUnavailableProviderIsAFault() {
    assertThat(CredentialFailures.toApplicationFailure(CredentialException.sessionTerminal("s1", "FAILED")).getCategory())
        .isEqualTo(ApplicationErrorCategory.BENIGN);
    assertThat(CredentialFailures.toApplicationFailure(CredentialException.providerUnavailable("GitHub answered 502", null))
        .getCategory()).isEqualTo(ApplicationErrorCategory.UNSPECIFIED);
  }
}
