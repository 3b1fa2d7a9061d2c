package dev.kandev.recovery.activities.store;

/** A persisted {@code session_messages} row. */
public record TranscriptEntry(int ordinal, String role, String content, String dedupeKey) {}
