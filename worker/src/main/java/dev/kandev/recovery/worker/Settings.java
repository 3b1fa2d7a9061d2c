package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.runtime.NpmSettings;
import dev.kandev.recovery.activities.store.DatabaseSettings;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import java.lang.management.ManagementFactory;
import java.util.Map;

/**
 * The worker's configuration, read from environment variables with defaults that work on a
 * developer machine with a local PostgreSQL (see README "Configuration").
 */
public record Settings(
    DatabaseSettings database,
    String temporalAddress,
    String temporalNamespace,
    String taskQueue,
    String workerInstance,
    NpmSettings npm) {

  public static Settings fromEnvironment(Map<String, String> env) {
    return new Settings(
        new DatabaseSettings(
            env.getOrDefault("KANDEV_DB_URL", "jdbc:postgresql://127.0.0.1:5432/postgres"),
            env.getOrDefault("KANDEV_DB_USER", "postgres"),
            env.getOrDefault("KANDEV_DB_PASSWORD", ""),
            env.getOrDefault("KANDEV_DB_SCHEMA", "kandev_recovery"),
            Integer.parseInt(env.getOrDefault("KANDEV_DB_POOL_SIZE", "10"))),
        env.getOrDefault("TEMPORAL_ADDRESS", "127.0.0.1:7233"),
        env.getOrDefault("TEMPORAL_NAMESPACE", "default"),
        env.getOrDefault("KANDEV_TASK_QUEUE", RecoveryTaskQueue.DEFAULT),
        env.getOrDefault("KANDEV_WORKER_INSTANCE", ManagementFactory.getRuntimeMXBean().getName()),
        NpmSettings.fromEnvironment(env));
  }

  public static Settings fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  /** The port part of {@link #temporalAddress()}. */
  public int temporalPort() {
    int colon = temporalAddress.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("TEMPORAL_ADDRESS '" + temporalAddress + "' must be host:port");
    }
    return Integer.parseInt(temporalAddress.substring(colon + 1));
  }
}
