package dev.kandev.recovery.activities.redaction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.redaction.Redaction.Shape;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Each kind of secret the one redaction knows, in the forms process output carries it. */
class RedactionTest {
  /** Every shape, in text as a process writes it: the secret, and what must stay to say what was there. */
  static Stream<Arguments> secretsOfEveryShape() {
    return Stream.of(
        Arguments.of(Shape.PRIVATE_KEY, "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAsecretbody\n"
            + "-----END RSA PRIVATE KEY-----\ndone", "MIIEowIBAAKCAQEAsecretbody", "key:\n***\ndone"),
        Arguments.of(Shape.PRIVATE_KEY, "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B cut off",
            "MIIEvQIBADANBgkqhkiG9w0B", "***"),
        Arguments.of(Shape.GITHUB_TOKEN, "using ghp_16C7e42F292c6912E7710c838347Ae178B4a", "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
            "using ***"),
        Arguments.of(Shape.GITHUB_TOKEN, "installation ghs_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 ok",
            "ghs_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", "installation *** ok"),
        Arguments.of(Shape.GITHUB_TOKEN, "pat github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz end",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "pat *** end"),
        Arguments.of(Shape.GITHUB_TOKEN, "oauth gho_abcdefghijklmnopqrstuvwxyz0123456789", "gho_abcdefghijklmnopqrstuvwxyz0123456789",
            "oauth ***"),
        Arguments.of(Shape.NPM_TOKEN, "npm token npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789", "npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
            "npm token ***"),
        Arguments.of(Shape.API_KEY, "ANTHROPIC_KEY is sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
            "ANTHROPIC_KEY is ***"),
        Arguments.of(Shape.AWS_ACCESS_KEY, "aws AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE", "aws *** here"),
        Arguments.of(Shape.AUTHORIZATION_HEADER, "> Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.payload.sig",
            "eyJhbGciOiJSUzI1NiJ9.payload.sig", "> Authorization: Bearer ***"),
        Arguments.of(Shape.AUTHORIZATION_HEADER, "proxy-authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==",
            "proxy-authorization: Basic ***"),
        Arguments.of(Shape.AUTHORIZATION_HEADER, "authorization=opaqueSecretValue", "opaqueSecretValue", "authorization=***"),
        Arguments.of(Shape.BEARER, "retrying with bearer abc123def456ghi", "abc123def456ghi", "retrying with bearer ***"),
        Arguments.of(Shape.BEARER, "curl -H 'token 0123456789abcdef'", "0123456789abcdef", "curl -H 'token ***'"),
        Arguments.of(Shape.NPMRC_AUTH, "//registry.npmjs.org/:_authToken=npmrcSecretValue42", "npmrcSecretValue42",
            "//registry.npmjs.org/:_authToken=***"),
        Arguments.of(Shape.NPMRC_AUTH, "//npm.internal:4873/:_authToken = \"quoted secret\"", "quoted secret",
            "//npm.internal:4873/:_authToken = ***"),
        Arguments.of(Shape.NPMRC_AUTH, "_auth=dXNlcjpzZWNyZXQ=", "dXNlcjpzZWNyZXQ=", "_auth=***"),
        Arguments.of(Shape.NPMRC_AUTH, "//registry/:_password=c2VjcmV0cGFzcw==", "c2VjcmV0cGFzcw==", "//registry/:_password=***"),
        Arguments.of(Shape.URL_USERINFO, "fetch https://x-access-token:s3cr3t-pass@github.com/acme/repo.git",
            "s3cr3t-pass", "fetch https://***@github.com/acme/repo.git"),
        Arguments.of(Shape.URL_USERINFO, "registry http://deploy-user-token-123@npm.internal/", "deploy-user-token-123",
            "registry http://***@npm.internal/"),
        Arguments.of(Shape.URL_USERINFO, "jdbc:postgresql://kandev:dbpass99@db:5432/kandev", "dbpass99",
            "jdbc:postgresql://***@db:5432/kandev"),
        Arguments.of(Shape.SECRET_ASSIGNMENT, "connect ?user=k&password=hunter22&sslmode=require", "hunter22",
            "connect ?user=k&password=***&sslmode=require"),
        Arguments.of(Shape.SECRET_ASSIGNMENT, "env KANDEV_DB_PASSWORD=envpass77 set", "envpass77", "env KANDEV_DB_PASSWORD=*** set"),
        Arguments.of(Shape.SECRET_ASSIGNMENT, "{\"apiKey\": \"json-secret-value\"}", "json-secret-value", "{\"apiKey\": ***}"),
        Arguments.of(Shape.SECRET_ASSIGNMENT, "client_secret: yamlsecret1", "yamlsecret1", "client_secret: ***"),
        Arguments.of(Shape.SECRET_ASSIGNMENT, "PGPASSWORD='quoted pass'", "quoted pass", "PGPASSWORD=***"));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("secretsOfEveryShape")
  void masksEachShapeKeepingWhatSaysWhatWasThere(Shape shape, String text, String secret, String expected) {
    assertThat(Redaction.SHAPES.apply(text)).isEqualTo(expected).doesNotContain(secret);
    assertThat(shape.mask(text)).as("%s alone masks it", shape).doesNotContain(secret);
  }

  @Test
  void everyShapeHasACase() {
    Set<Shape> tested = EnumSet.noneOf(Shape.class);
    secretsOfEveryShape().forEach(a -> tested.add((Shape) a.get()[0]));
    assertThat(tested).containsExactlyInAnyOrder(Shape.values());
  }

  @Test
  void masksKnownValuesWhateverTheirShapeLongestFirst() {
    Redaction redaction = Redaction.of(List.of("lease-abc", "lease-abcdef-long", "short"));

    assertThat(redaction.apply("echo lease-abcdef-long and lease-abc and short"))
        .isEqualTo("echo *** and *** and short");
  }

  @Test
  void masksTheValuesOfAnEnvironmentsSecretVariablesOnly() {
    Redaction redaction = Redaction.ofEnvironment(Map.of(
        "npm_config_//npm.internal/:_authToken", "plain-token-value", "HOME", "/home/kandev", "OPENAI_API_KEY", "opaque-key-value"));

    assertThat(redaction.apply("HOME=/home/kandev plain-token-value opaque-key-value"))
        .isEqualTo("HOME=/home/kandev *** ***");
  }

  @Test
  void leavesOrdinaryOutputAlone() {
    List<String> ordinary = List.of(
        "npm error code E404",
        "npm error 404 Not Found - GET http://127.0.0.1:4873/@kandev%2fagent - no such package",
        "password authentication failed for user \"kandev\"",
        "the token received was rejected; retry with a new token",
        "ACP initialize timed out after 60 s",
        "Connection to 127.0.0.1:5433 refused. Check that the hostname and port are correct");

    assertThat(Redaction.SHAPES.apply(ordinary)).isEqualTo(ordinary);
  }

  @Test
  void nullStaysNullAndMaskedTextStaysAsItIs() {
    assertThat(Redaction.SHAPES.apply((String) null)).isNull();
    String once = Redaction.SHAPES.apply("Authorization: Bearer abc123def456 password=x1y2z3");
    assertThat(Redaction.SHAPES.apply(once)).isEqualTo(once).isEqualTo("Authorization: Bearer *** password=***");
  }
}
