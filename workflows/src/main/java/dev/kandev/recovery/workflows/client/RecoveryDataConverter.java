package dev.kandev.recovery.workflows.client;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import dev.kandev.recovery.workflows.InvalidRequest;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflow;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateRequest;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateWorkflow;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.failure.v1.Failure;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DataConverterException;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import io.temporal.payload.context.SerializationContext;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.Optional;

/**
 * The data converter of the worker and of every Java starter (set it on the {@code
 * WorkflowClient}): Temporal's default converters, with JSON read
 *
 * <ul>
 *   <li>ignoring unknown fields: starters evolve before workers, and workers before Java clients;
 *   <li>without silent coercions: a number is not a string, and an enum is given by its name;
 *   <li>and, for a workflow's input, failing with {@code INVALID_REQUEST} and a message in the
 *       contract's words (the worker fails the workflow with it; see {@code Components}).
 * </ul>
 */
public final class RecoveryDataConverter implements DataConverter {
  /** The input record of each workflow, with the workflow type it belongs to. */
  private static final Map<Class<?>, String> WORKFLOW_INPUTS = Map.of(
      ResumeRequest.class, ResumeSessionWorkflow.TYPE,
      RuntimeUpdateRequest.class, RuntimeUpdateWorkflow.TYPE);

  public static final DataConverter INSTANCE = new RecoveryDataConverter(
      DefaultDataConverter.newDefaultInstance().withPayloadConverterOverrides(new JacksonJsonPayloadConverter(objectMapper())));

  private final DataConverter delegate;

  private RecoveryDataConverter(DataConverter delegate) {
    this.delegate = delegate;
  }

  /** Temporal's default mapper (java.time, Optional) with the rules above. */
  static ObjectMapper objectMapper() {
    ObjectMapper mapper = JacksonJsonPayloadConverter.newDefaultObjectMapper()
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS);
    for (CoercionInputShape scalar : new CoercionInputShape[] {
        CoercionInputShape.Integer, CoercionInputShape.Float, CoercionInputShape.Boolean}) {
      mapper.coercionConfigFor(LogicalType.Textual).setCoercion(scalar, CoercionAction.Fail);
    }
    return mapper;
  }

  @Override
  public <T> Optional<Payload> toPayload(T value) throws DataConverterException {
    return delegate.toPayload(value);
  }

  @Override
  public <T> T fromPayload(Payload payload, Class<T> valueClass, Type valueType) throws DataConverterException {
    try {
      return delegate.fromPayload(payload, valueClass, valueType);
    } catch (DataConverterException e) {
      throw invalidInput(valueClass, e);
    }
  }

  @Override
  public Optional<Payloads> toPayloads(Object... values) throws DataConverterException {
    return delegate.toPayloads(values);
  }

  @Override
  public <T> T fromPayloads(int index, Optional<Payloads> content, Class<T> valueClass, Type valueType)
      throws DataConverterException {
    try {
      return delegate.fromPayloads(index, content, valueClass, valueType);
    } catch (DataConverterException e) {
      throw invalidInput(valueClass, e);
    }
  }

  @Override
  public RuntimeException failureToException(Failure failure) {
    return delegate.failureToException(failure);
  }

  @Override
  public Failure exceptionToFailure(Throwable throwable) {
    return delegate.exceptionToFailure(throwable);
  }

  @Override
  public DataConverter withContext(SerializationContext context) {
    return new RecoveryDataConverter(delegate.withContext(context));
  }

  /** A workflow input that does not convert is the starter's mistake: INVALID_REQUEST; anything else stays as it was. */
  private static RuntimeException invalidInput(Class<?> valueClass, DataConverterException e) {
    String workflowType = WORKFLOW_INPUTS.get(valueClass);
    if (workflowType == null) {
      return e;
    }
    return InvalidRequest.failure("invalid " + workflowType + " input: " + PayloadProblem.describe(e));
  }
}
