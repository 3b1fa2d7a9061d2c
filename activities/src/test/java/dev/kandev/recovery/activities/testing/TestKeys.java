package dev.kandev.recovery.activities.testing;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.util.Arrays;
import java.util.Base64;

/** RSA key pairs for GitHub App tests, and their private keys as PKCS#8 and PKCS#1 PEM. */
public final class TestKeys {
  private static KeyPair shared;

  private TestKeys() {}

  /** One 2048-bit pair per test JVM (generation is slow-ish). */
  public static synchronized KeyPair appKeyPair() {
    if (shared == null) {
      shared = generate();
    }
    return shared;
  }

  public static KeyPair generate() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      return generator.generateKeyPair();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String pkcs8Pem(PrivateKey key) {
    return pem("PRIVATE KEY", key.getEncoded());
  }

  /** {@code BEGIN RSA PRIVATE KEY}, the format GitHub issues App keys in. */
  public static String pkcs1Pem(PrivateKey key) {
    byte[] pkcs8 = key.getEncoded();
    // PrivateKeyInfo of a 2048-bit key: 30 82 xx xx | 02 01 00 | 30 0d <rsaEncryption, NULL> | 04 82 xx xx | RSAPrivateKey
    int offset = 4 + 3 + 15 + 4;
    if (pkcs8[0] != 0x30 || pkcs8[22] != 0x04 || (pkcs8[23] & 0xff) != 0x82) {
      throw new IllegalStateException("unexpected PKCS#8 layout");
    }
    return pem("RSA PRIVATE KEY", Arrays.copyOfRange(pkcs8, offset, pkcs8.length));
  }

  private static String pem(String type, byte[] der) {
    String body = Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }
}
