package dev.kandev.recovery.workflows.resume;

/**
 * The agent runs and its provider-native session is loaded (or newly created).
 *
 * @param loaded true if the stored token was reattached ({@code session/load} or {@code
 *     session/resume}), false if a new session was created
 * @param sessionMethod the ACP request that did it: {@code session/load}, {@code session/resume} or
 *     {@code session/new}; null in results recorded before this field existed (they were all
 *     {@code session/load} or {@code session/new}, as {@code loaded} says)
 */
public record LaunchOutcome(String providerSessionId, boolean loaded, long pid, String agentName, String sessionMethod) {
  /** An outcome that does not name its method (fakes and tests that only need the rest). */
  public LaunchOutcome(String providerSessionId, boolean loaded, long pid, String agentName) {
    this(providerSessionId, loaded, pid, agentName, null);
  }
}
