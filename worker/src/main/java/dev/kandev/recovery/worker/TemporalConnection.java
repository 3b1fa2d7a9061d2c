package dev.kandev.recovery.worker;

import dev.kandev.recovery.workflows.client.RecoveryDataConverter;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;

/**
 * A client connection to the Temporal server of the settings. Its identity is the worker instance,
 * so the Web UI names the worker that ran each activity attempt, as executors_running does; its
 * data converter (also the worker's) is the contract's {@link RecoveryDataConverter}.
 */
final class TemporalConnection implements AutoCloseable {
  final WorkflowServiceStubs service;
  final WorkflowClient client;

  private TemporalConnection(WorkflowServiceStubs service, String namespace, String identity) {
    this.service = service;
    this.client = WorkflowClient.newInstance(service, WorkflowClientOptions.newBuilder()
        .setNamespace(namespace)
        .setIdentity(identity)
        .setDataConverter(RecoveryDataConverter.INSTANCE)
        .build());
  }

  static TemporalConnection open(String target, String namespace, String identity) {
    return new TemporalConnection(
        WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder().setTarget(target).build()),
        namespace, identity);
  }

  static TemporalConnection open(Settings settings) {
    return open(settings.temporalAddress(), settings.temporalNamespace(), settings.workerInstance());
  }

  @Override
  public void close() {
    service.shutdown();
  }
}
