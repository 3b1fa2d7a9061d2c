package dev.kandev.recovery.activities.credentials.github;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.kandev.recovery.activities.credentials.CredentialException;
import java.security.interfaces.RSAPrivateKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

/**
 * Signs the short-lived RS256 JWT that authenticates as the GitHub App. Per GitHub's guidance
 * {@code iat} is backdated 60 s against clock drift and {@code exp} stays under the 10 min limit.
 */
final class GitHubAppJwtSigner {
  static final Duration BACKDATE = Duration.ofSeconds(60);
  static final Duration LIFETIME = Duration.ofMinutes(9);

  private final String appId;
  private final RSASSASigner signer;
  private final Clock clock;

  GitHubAppJwtSigner(String appId, RSAPrivateKey key, Clock clock) {
    this.appId = appId;
    this.signer = new RSASSASigner(key);
    this.clock = clock;
  }

  /** The JWT (a secret). */
  String sign() {
    Instant now = clock.instant();
    JWTClaimsSet claims =
        new JWTClaimsSet.Builder()
            .issuer(appId)
            .issueTime(Date.from(now.minus(BACKDATE)))
            .expirationTime(Date.from(now.plus(LIFETIME)))
            .build();
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
    try {
      jwt.sign(signer);
    } catch (JOSEException e) {
      throw CredentialException.configInvalid("cannot sign the GitHub App JWT (" + e.getClass().getSimpleName() + ")", null);
    }
    return jwt.serialize();
  }
}
