package dev.kandev.recovery.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.observability.RecoveryMetrics;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What a worker's parts leave behind on the machine once closed. */
class ComponentsTest {
  @RegisterExtension final TestDatabase db = new TestDatabase();

  @Test
  void aClosedWorkerLeavesNoCredentialHelperBehind() {
    Components components = Components.of(Settings.fromEnvironment(Map.of("KANDEV_DB_SCHEMA", db.database().schema(),
        "KANDEV_WORKER_INSTANCE", "components-test")), db.database(), RecoveryMetrics.none());
    Path helper = components.credentialHelper();
    assertThat(helper).as("the helper git runs for the worker's agents").isExecutable();

    components.close();
    components.close();

    assertThat(helper.getParent()).as("the helper's temporary directory").doesNotExist();
  }
}
