package dev.kandev.recovery.workflows.client;

import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.InvalidRequest;

/**
 * The Java client refused a request before starting anything, for the reason the workflow would
 * give as an {@code INVALID_REQUEST} failure.
 */
public final class InvalidRequestException extends IllegalArgumentException {
  InvalidRequestException(String reason) {
    super(InvalidRequest.message(reason));
  }

  /** The failure type a workflow would have failed with. */
  public String type() {
    return FailureType.INVALID_REQUEST.type();
  }
}
