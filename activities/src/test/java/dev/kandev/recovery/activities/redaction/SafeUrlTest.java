package dev.kandev.recovery.activities.redaction;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A configured URL as every output shows it: no userinfo, no query value, whatever its form. */
class SafeUrlTest {
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "jdbc:postgresql://127.0.0.1:5432/postgres | jdbc:postgresql://127.0.0.1:5432/postgres",
      "jdbc:postgresql://db:5432/kandev?user=k&password=Sekr3t&sslmode=require | jdbc:postgresql://db:5432/kandev?user=***&password=***&sslmode=***",
      "postgres://kandev:Sekr3t@db.internal:5433/kandev?sslmode=disable | postgres://***@db.internal:5433/kandev?sslmode=***",
      "jdbc:postgresql://kandev:Sekr3t@a:5432,b:5433/kandev | jdbc:postgresql://***@a:5432,b:5433/kandev",
      "postgres://kandev:Sek/r3t@db/kandev | postgres://***@db/kandev",
      "postgres://kandev:Sek?r3t@db/kandev | postgres://***@***",
      "postgres://kandev:Sek#r3t@db/kandev | postgres://***@***",
      "jdbc:postgresql://db/kandev?user=a@b&password=Sekr3t | jdbc:postgresql://***@***&password=***",
      "jdbc:postgresql://db/kandev?password | jdbc:postgresql://db/kandev?***",
      "jdbc:postgresql://db/kandev#Sekr3t | jdbc:postgresql://db/kandev#***",
      "mysql://u:Sekr3t@h/x | mysql://***@h/x",
      "host=127.0.0.1 dbname=x | host=127.0.0.1 dbname=x"})
  void showsNoUserInfoAndNoQueryValue(String url, String shown) {
    assertThat(SafeUrl.of(url)).isEqualTo(shown).doesNotContain("Sekr3t", "Sek");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "postgres://kandev:p%40ss@db/kandev | p%40ss | p@ss",
      "jdbc:postgresql://db/kandev?password=Sekr3t&sslpassword=Other1&sslmode=require | Sekr3t | Other1"})
  void namesTheSecretPartsADriverMightRepeat(String url, String first, String second) {
    assertThat(SafeUrl.secretsOf(url)).containsExactly(first, second);
  }
}
