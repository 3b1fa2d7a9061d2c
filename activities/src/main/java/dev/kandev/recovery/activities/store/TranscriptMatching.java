package dev.kandev.recovery.activities.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * How a {@code session/load} replay is matched against a persisted transcript, in both layouts. Every
 * persisted message has a dedupe key: {@code id:<provider message id>} when the agent names its
 * message, else {@code hash:<sha256(role, content)>:<n>} for the n-th identical message.
 */
public final class TranscriptMatching {
  private TranscriptMatching() {}

  /** The first persisted message {@code m} replays that this replay has not matched yet, or -1. */
  public static int findMatch(TranscriptMessage m, List<TranscriptEntry> existing, boolean[] matched) {
    if (m.providerMessageId() != null) {
      String idKey = "id:" + m.providerMessageId();
      for (int i = 0; i < matched.length; i++) {
        if (!matched[i] && existing.get(i).dedupeKey().equals(idKey)) {
          return i;
        }
      }
    }
    for (int i = 0; i < matched.length; i++) {
      TranscriptEntry e = existing.get(i);
      if (!matched[i] && e.role().equals(m.role()) && e.content().equals(m.content())) {
        return i;
      }
    }
    return -1;
  }

  /**
   * A user message is keyed by content: the client wrote it and cannot know the id the agent gives
   * it, which is what a later replay carries.
   */
  public static String keyFor(TranscriptMessage m, List<TranscriptEntry> existing) {
    if (m.providerMessageId() != null && !m.role().equals("user")) {
      return "id:" + m.providerMessageId();
    }
    String hash = sha256(m.role() + "\n" + m.content());
    long same = existing.stream().filter(e -> e.dedupeKey().startsWith("hash:" + hash + ":")).count();
    return "hash:" + hash + ":" + same;
  }

  public static int nextOrdinal(List<TranscriptEntry> existing) {
    return existing.stream().mapToInt(TranscriptEntry::ordinal).max().orElse(0) + 1;
  }
  private static String sha256(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always available", e);
    }
  }
}
