package dev.kandev.recovery.activities.runtime;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The name npm gives a package's execution tree under {@code <cache>/_npx}: the first 16 lowercase
 * hex chars of SHA-512 over the spec string as written (npm 11 libnpmexec, for one registry or
 * tarball spec; a local directory spec would be hashed as its absolute path, which built-ins never
 * are).
 */
public final class NpxKey {
  private NpxKey() {}

  public static String of(String packageSpec) {
    if (packageSpec == null || packageSpec.isBlank()) {
      throw new IllegalArgumentException("empty package spec");
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-512").digest(packageSpec.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-512 is part of every JDK", e);
    }
  }
}
