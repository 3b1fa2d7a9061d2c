package dev.kandev.recovery.worker.config;

import io.temporal.envconfig.ClientConfigProfile;
import io.temporal.envconfig.LoadClientConfigProfileOptions;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.util.Map;

/**
 * How to reach Temporal, read with Temporal's own client configuration (temporal-envconfig), the
 * names the Temporal CLI and the other SDKs use: the profile {@code TEMPORAL_PROFILE} (default
 * {@code default}) of the TOML file {@code TEMPORAL_CONFIG_FILE} (default
 * {@code ~/.config/temporalio/temporal.toml}, if it exists), overridden by {@code TEMPORAL_ADDRESS},
 * {@code TEMPORAL_NAMESPACE}, {@code TEMPORAL_API_KEY}, {@code TEMPORAL_TLS},
 * {@code TEMPORAL_TLS_CLIENT_CERT_PATH}/{@code _DATA}, {@code TEMPORAL_TLS_CLIENT_KEY_PATH}/{@code _DATA},
 * {@code TEMPORAL_TLS_SERVER_CA_CERT_PATH}/{@code _DATA}, {@code TEMPORAL_TLS_SERVER_NAME} and
 * {@code TEMPORAL_GRPC_META_*}. Its text never shows the API key or key material.
 */
public final class TemporalClientConfig {
  static final String DEFAULT_ADDRESS = "127.0.0.1:7233";
  static final String DEFAULT_NAMESPACE = "default";

  private final ClientConfigProfile profile;

  private TemporalClientConfig(ClientConfigProfile profile) {
    this.profile = profile;
  }

  static TemporalClientConfig load(Map<String, String> env) {
    try {
      return new TemporalClientConfig(ClientConfigProfile.load(
          LoadClientConfigProfileOptions.newBuilder().setEnvOverrides(env).build()));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("the Temporal client configuration (TEMPORAL_CONFIG_FILE "
          + env.getOrDefault("TEMPORAL_CONFIG_FILE", "~/.config/temporalio/temporal.toml") + ", profile "
          + env.getOrDefault("TEMPORAL_PROFILE", "default") + ") cannot be read: " + e.getMessage(), e);
    }
  }

  public String address() {
    return blank(profile.getAddress()) ? DEFAULT_ADDRESS : profile.getAddress();
  }

  public String namespace() {
    return blank(profile.getNamespace()) ? DEFAULT_NAMESPACE : profile.getNamespace();
  }

  /** TLS is on when asked for, or implied by an API key or any TLS setting (as the other SDKs do). */
  public boolean tls() {
    WorkflowServiceStubsOptions options = profile.toWorkflowServiceStubsOptions();
    return options.getEnableHttps() || options.getSslContext() != null;
  }

  public boolean hasApiKey() {
    return !blank(profile.getApiKey());
  }

  /** The stubs' options of this configuration; the address defaults to {@link #DEFAULT_ADDRESS}. */
  public WorkflowServiceStubsOptions.Builder stubsOptions() {
    WorkflowServiceStubsOptions.Builder options = WorkflowServiceStubsOptions.newBuilder(profile.toWorkflowServiceStubsOptions());
    if (blank(profile.getAddress())) {
      options.setTarget(DEFAULT_ADDRESS);
    }
    return options;
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }

  @Override
  public String toString() {
    return "TemporalClientConfig[address=" + address() + ", namespace=" + namespace() + ", apiKey="
        + (hasApiKey() ? "set" : "none") + ", tls=" + (tls() ? "on" : "off") + "]";
  }
}
