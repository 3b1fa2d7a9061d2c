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
import java.util.List;
import java.util.Set;

/**
 * Registers the custom search attributes on a Temporal server: only those it lacks (a server
 * refuses the whole request when one of them exists), so it is idempotent and adds new ones to an
 * older server. {@link #requireRegistered} checks a server the worker does not register them on.
 */
public final class SearchAttributeRegistrar {
  private SearchAttributeRegistrar() {}

  public static void register(WorkflowServiceStubs service, String namespace) {
    OperatorServiceStubs operator = operator(service);
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

  /**
   * @throws SearchAttributesMissingException the namespace lacks some of them (a bare server, a new
   *     Temporal Cloud namespace); a server that cannot list them (the SDK's test server, a key that
   *     may not use the operator service) is not checked
   */
  public static void requireRegistered(WorkflowServiceStubs service, String namespace) {
    OperatorServiceStubs operator = operator(service);
    try {
      Set<String> existing = operator.blockingStub()
          .listSearchAttributes(ListSearchAttributesRequest.newBuilder().setNamespace(namespace).build())
          .getCustomAttributesMap().keySet();
      List<String> missing = RecoverySearchAttributes.ALL.stream()
          .map(key -> key.getName()).filter(name -> !existing.contains(name)).toList();
      if (!missing.isEmpty()) {
        throw new SearchAttributesMissingException(namespace, missing);
      }
    } catch (StatusRuntimeException e) {
      Status.Code code = e.getStatus().getCode();
      if (code != Status.Code.UNIMPLEMENTED && code != Status.Code.PERMISSION_DENIED) {
        throw e;
      }
    } finally {
      operator.shutdown();
    }
  }

  private static OperatorServiceStubs operator(WorkflowServiceStubs service) {
    return OperatorServiceStubs.newServiceStubs(
        OperatorServiceStubsOptions.newBuilder().setChannel(service.getRawChannel()).validateAndBuildWithDefaults());
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
