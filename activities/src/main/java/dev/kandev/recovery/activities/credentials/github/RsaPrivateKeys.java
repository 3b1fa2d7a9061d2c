package dev.kandev.recovery.activities.credentials.github;

import dev.kandev.recovery.activities.credentials.CredentialException;
import java.io.ByteArrayOutputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.interfaces.RSAPrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses an RSA private key PEM: PKCS#8 ({@code BEGIN PRIVATE KEY}) or PKCS#1 ({@code BEGIN RSA
 * PRIVATE KEY}, what GitHub issues for Apps). The JDK reads only PKCS#8, so a PKCS#1 key is wrapped
 * in the PKCS#8 PrivateKeyInfo structure (a fixed algorithm identifier plus DER lengths) instead of
 * pulling in BouncyCastle for one conversion.
 */
final class RsaPrivateKeys {
  private static final Pattern PEM =
      Pattern.compile("-----BEGIN (RSA )?PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END \\1?PRIVATE KEY-----");

  /** SEQUENCE { INTEGER 0, SEQUENCE { OID rsaEncryption, NULL } } prefix of PrivateKeyInfo. */
  private static final byte[] VERSION_AND_RSA_ALGORITHM = {
    0x02, 0x01, 0x00,
    0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00
  };

  private RsaPrivateKeys() {}

  static RSAPrivateKey parse(String pem) {
    Matcher m = PEM.matcher(pem == null ? "" : pem);
    if (!m.find()) {
      throw CredentialException.configInvalid(
          "GitHub App private key is not a PEM 'RSA PRIVATE KEY' or 'PRIVATE KEY'", null);
    }
    try {
      byte[] der = Base64.getMimeDecoder().decode(m.group(2).replaceAll("\\s", ""));
      byte[] pkcs8 = m.group(1) != null ? wrapPkcs1(der) : der;
      return (RSAPrivateKey) KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    } catch (GeneralSecurityException | IllegalArgumentException | ClassCastException e) {
      // The cause's message could echo key material; keep only its type.
      throw CredentialException.configInvalid(
          "GitHub App private key is malformed (" + e.getClass().getSimpleName() + ")", null);
    }
  }

  private static byte[] wrapPkcs1(byte[] pkcs1) {
    ByteArrayOutputStream octetString = new ByteArrayOutputStream();
    octetString.write(0x04);
    writeLength(octetString, pkcs1.length);
    octetString.writeBytes(pkcs1);
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(VERSION_AND_RSA_ALGORITHM);
    body.writeBytes(octetString.toByteArray());
    ByteArrayOutputStream info = new ByteArrayOutputStream();
    info.write(0x30);
    writeLength(info, body.size());
    info.writeBytes(body.toByteArray());
    return info.toByteArray();
  }

  private static void writeLength(ByteArrayOutputStream out, int length) {
    if (length < 0x80) {
      out.write(length);
      return;
    }
    int bytes = length > 0xffffff ? 4 : length > 0xffff ? 3 : length > 0xff ? 2 : 1;
    out.write(0x80 | bytes);
    for (int i = bytes - 1; i >= 0; i--) {
      out.write(length >>> (8 * i));
    }
  }
}
