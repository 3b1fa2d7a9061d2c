package dev.kandev.recovery.workflows.resume;

import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.converter.DefaultDataConverter;
import java.util.Optional;

/** The {@code Workflow.getVersion} markers of a history, as the SDK records them. */
final class VersionMarkers {
  private VersionMarkers() {}

  static boolean isVersionMarker(HistoryEvent event) {
    return event.hasMarkerRecordedEventAttributes() && event.getMarkerRecordedEventAttributes().getMarkerName().equals("Version");
  }

  /** A marker's detail {@code name} ({@code changeId}, {@code version}) decoded as {@code type}. */
  static <T> T detail(HistoryEvent marker, String name, Class<T> type) {
    return DefaultDataConverter.STANDARD_INSTANCE.fromPayloads(0,
        Optional.of(marker.getMarkerRecordedEventAttributes().getDetailsOrThrow(name)), type, type);
  }
}
