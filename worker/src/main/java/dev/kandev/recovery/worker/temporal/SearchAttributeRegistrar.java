package dev.kandev.recovery.worker.temporal;

import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.Set;

/**
 * Registers the custom search attributes on a Temporal server: only those it lacks (a server
 * refuses the whole request when one of them exists), so it is idempotent and adds new ones to an
 * older server.
 */
public final class SearchAttributeRegistrar {
  private SearchAttributeRegistrar() {}

  public static void register(WorkflowServiceStubs service, String namespace) {
    OperatorServiceStubs operator =
        OperatorServiceStubs.newServiceStubs(
            OperatorServiceStubsOptions.newBuilder().setChannel(service.getRawChannel()).validateAndBuildWithDefaults());
    try {
      Set<String> existing = existing(operator, namespace);
      AddSearchAttributesRequest.Builder request = AddSearchAttributesRequest.newBuilder().setNamespace(namespace);
      RecoverySearchAttributes.ALL.stream()
          .filter(key -> !existing.contains(key.getName()))
          .forEach(key -> request.putSearchAttributes(key.getName(), IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD));
      if (request.getSearchAttributesCount() > 0) {
        operator.blockingStub().addSearchAttributes(request.build());
      }
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
        throw e;
      }
    } finally {
      operator.shutdown();
    }
  }

  /** The custom attributes the namespace has; none known when the server cannot list them (the SDK's test server). */
  private static Set<String> existing(OperatorServiceStubs operator, String namespace) {
    try {
      return operator.blockingStub()
          .listSearchAttributes(ListSearchAttributesRequest.newBuilder().setNamespace(namespace).build())
          .getCustomAttributesMap().keySet();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        return Set.of();
      }
      throw e;
    }
  }
}
