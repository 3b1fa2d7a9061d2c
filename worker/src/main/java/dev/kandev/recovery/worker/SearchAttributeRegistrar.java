package dev.kandev.recovery.worker;

import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;

/** Registers the custom search attributes on a Temporal server (idempotent). */
final class SearchAttributeRegistrar {
  private SearchAttributeRegistrar() {}

  static void register(WorkflowServiceStubs service, String namespace) {
    OperatorServiceStubs operator =
        OperatorServiceStubs.newServiceStubs(
            OperatorServiceStubsOptions.newBuilder().setChannel(service.getRawChannel()).validateAndBuildWithDefaults());
    try {
      AddSearchAttributesRequest.Builder request = AddSearchAttributesRequest.newBuilder().setNamespace(namespace);
      RecoverySearchAttributes.ALL.forEach(
          key -> request.putSearchAttributes(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD));
      operator.blockingStub().addSearchAttributes(request.build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
        throw e;
      }
    } finally {
      operator.shutdown();
    }
  }
}
