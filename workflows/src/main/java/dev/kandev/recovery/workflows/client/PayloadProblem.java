package dev.kandev.recovery.workflows.client;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What is wrong with a JSON payload, in the words of the contract (field names and JSON types),
 * never with Java class names: a starter in another language must be able to act on it.
 */
final class PayloadProblem {
  private static final int MAX_VALUE_CHARS = 80;

  private PayloadProblem() {}

  static String describe(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof JsonParseException parse) {
        return "it is not valid JSON" + location(parse.getLocation());
      }
      if (t instanceof InvalidFormatException format) {
        return subject(format.getPath()) + " " + shown(format.getValue()) + " is not " + expected(format.getTargetType());
      }
      if (t instanceof MismatchedInputException mismatch) {
        return subject(mismatch.getPath()) + " must be " + expected(mismatch.getTargetType());
      }
      if (t instanceof JsonMappingException mapping) {
        return subject(mapping.getPath()) + " cannot be read";
      }
    }
    return "it cannot be read as JSON";
  }

  private static String subject(List<JsonMappingException.Reference> path) {
    if (path.isEmpty()) {
      return "the payload";
    }
    StringBuilder field = new StringBuilder();
    for (JsonMappingException.Reference reference : path) {
      if (reference.getFieldName() != null) {
        field.append(field.length() == 0 ? "" : ".").append(reference.getFieldName());
      } else if (reference.getIndex() >= 0) {
        field.append('[').append(reference.getIndex()).append(']');
      }
    }
    return "field '" + field + "'";
  }

  private static String expected(Class<?> type) {
    if (type == null) {
      return "of the documented type";
    }
    if (CharSequence.class.isAssignableFrom(type)) {
      return "a string";
    }
    if (type.isEnum()) {
      return "one of " + Arrays.stream(type.getEnumConstants()).map(c -> ((Enum<?>) c).name())
          .collect(Collectors.joining(", "));
    }
    if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    }
    if (Number.class.isAssignableFrom(type) || type.isPrimitive()) {
      return "a number";
    }
    if (Collection.class.isAssignableFrom(type) || type.isArray()) {
      return "an array";
    }
    return Map.class.isAssignableFrom(type) || !type.getName().startsWith("java.") ? "a JSON object" : "of the documented type";
  }

  private static String shown(Object value) {
    String text = value instanceof String s ? "\"" + s + "\"" : String.valueOf(value);
    text = text.codePoints().map(c -> Character.isISOControl(c) ? '?' : c)
        .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
    return text.length() <= MAX_VALUE_CHARS ? text : text.substring(0, MAX_VALUE_CHARS) + "…";
  }

  private static String location(JsonLocation location) {
    return location == null || location.getLineNr() < 0 ? ""
        : " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
  }
}
