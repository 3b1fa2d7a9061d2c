package dev.kandev.recovery.worker.cli;

/** Help text several commands show (constants: annotation values). */
final class HelpText {
  /** The variables of the Temporal connection; {@code %n} is picocli's line break. */
  static final String TEMPORAL_ENVIRONMENT = "Environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,"
      + " TEMPORAL_TLS, TEMPORAL_TLS_*,%nTEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE, KANDEV_TASK_QUEUE";

  private HelpText() {}
}
