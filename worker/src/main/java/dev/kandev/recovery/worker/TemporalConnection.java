package dev.kandev.recovery.worker;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;

/** A client connection to the Temporal server of the settings. */
final class TemporalConnection implements AutoCloseable {
  final WorkflowServiceStubs service;
  final WorkflowClient client;

  private TemporalConnection(WorkflowServiceStubs service, String namespace) {
    this.service = service;
    this.client = WorkflowClient.newInstance(service, WorkflowClientOptions.newBuilder().setNamespace(namespace).build());
  }

  static TemporalConnection open(String target, String namespace) {
    return new TemporalConnection(
        WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder().setTarget(target).build()), namespace);
  }

  static TemporalConnection open(Settings settings) {
    return open(settings.temporalAddress(), settings.temporalNamespace());
  }

  @Override
  public void close() {
    service.shutdown();
  }
}
