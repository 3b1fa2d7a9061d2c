package dev.kandev.recovery.activities.redaction;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one redaction of what child processes write (an agent's stderr, npm's output, the ACP probe's
 * stderr) before it enters Temporal (failure messages, results), a log or the database: the exact
 * values the worker knows to be secret, then every credential of a known shape ({@link Shape}),
 * each replaced by {@value #MASK}. A shape keeps what says what was there ({@code Authorization:
 * Bearer ***}, {@code password=***}, {@code https://***@host}) and masks the value.
 */
public final class Redaction {
  public static final String MASK = "***";

  /** No value known in advance: the shapes alone. */
  public static final Redaction SHAPES = new Redaction(List.of());

  /** Values shorter than this are not masked by value (a short one would mask ordinary words). */
  static final int SHORTEST_KNOWN = 6;

  /** The credentials it recognises by their shape, each with the part of a match that is masked. */
  public enum Shape {
    /** PEM private keys, the whole block (an unterminated one to the end of the text). */
    PRIVATE_KEY("-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\\z)"),
    /** GitHub installation, personal, OAuth, user-to-server and refresh tokens; fine-grained PATs. */
    GITHUB_TOKEN("\\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    /** npm access tokens ({@code npm_…}). */
    NPM_TOKEN("\\bnpm_[A-Za-z0-9]{30,}"),
    /** API keys of the agents' providers ({@code sk-…}, {@code sk-ant-…}, {@code sk-proj-…}). */
    API_KEY("\\bsk-[A-Za-z0-9_-]{20,}"),
    /** AWS access key ids. */
    AWS_ACCESS_KEY("\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b"),
    /** An {@code Authorization} (or {@code Proxy-Authorization}) header's credentials, any scheme. */
    AUTHORIZATION_HEADER("(?i)\\b(?:proxy-)?authorization\\s*[:=]\\s*(?:(?:bearer|basic|token|digest)\\s+)?(\\S+)"),
    /**
     * A bearer, basic or token credential where it stands alone ({@code Bearer eyJ…}): at least 8
     * characters with a digit or {@code =} among them, so that "token received" stays as it is.
     */
    BEARER("(?i)\\b(?:bearer|basic|token)\\s+((?=[A-Za-z._~+/-]*[0-9=])[A-Za-z0-9._~+/=-]{8,})"),
    /** npm's registry credentials in {@code .npmrc} form: {@code //registry/:_authToken=…}, {@code _auth}, {@code _password}. */
    NPMRC_AUTH("(?i)(?:^|[\\s:/\"'])_(?:authToken|auth|password)\\s*=\\s*(\"[^\"]*\"|'[^']*'|\\S+)"),
    /** A URL's userinfo ({@code scheme://user:password@host}): all of it, a user name can be a token too. */
    URL_USERINFO("(?i)\\b[a-z][a-z0-9+.-]*://([^/\\s@?#]+)@"),
    /**
     * {@code name=value} or {@code name: value} whose name says secret (password, passwd, pwd,
     * secret, token, api key, access key, private key, credential), in any case, with or without a
     * prefix ({@code KANDEV_DB_PASSWORD=…}, {@code ?password=…}, {@code "apiKey": "…"}).
     */
    SECRET_ASSIGNMENT("(?i)\\b[A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key"
        + "|private[_-]?key|credential)[A-Za-z0-9_.-]*[\"']?\\s*[=:]\\s*(\"[^\"]*\"|'[^']*'|[^\\s&;,\"']+)");

    private final Pattern pattern;

    Shape(String regex) {
      this.pattern = Pattern.compile(regex);
    }

    /** The text with this shape's secrets masked: the match's group 1 if it has one, else the whole match. */
    String mask(String text) {
      Matcher m = pattern.matcher(text);
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        String replacement;
        if (m.groupCount() == 0) {
          replacement = MASK;
        } else {
          String group = m.group(1);
          replacement = group.equals(MASK) ? m.group()
              : m.group().substring(0, m.start(1) - m.start()) + MASK + m.group().substring(m.end(1) - m.start());
        }
        m.appendReplacement(out, Matcher.quoteReplacement(replacement));
      }
      m.appendTail(out);
      return out.toString();
    }
  }

  private static final Pattern SECRET_NAME =
      Pattern.compile("KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL", Pattern.CASE_INSENSITIVE);

  private final List<String> known;

  private Redaction(List<String> known) {
    this.known = known;
  }

  /** The shapes and these exact values (an agent's credentials, its profile's secret variables). */
  public static Redaction of(Collection<String> knownSecrets) {
    return new Redaction(knownSecrets.stream().filter(Objects::nonNull).filter(v -> v.length() >= SHORTEST_KNOWN)
        .distinct().sorted(Comparator.comparingInt(String::length).reversed()).toList());
  }

  /**
   * The shapes and the values of {@code environment}'s variables whose names say secret (as a
   * child's environment: {@code npm_config_//registry/:_authToken}, {@code GITHUB_TOKEN}, …).
   */
  public static Redaction ofEnvironment(Map<String, String> environment) {
    return of(environment.entrySet().stream().filter(e -> SECRET_NAME.matcher(e.getKey()).find())
        .map(Map.Entry::getValue).toList());
  }

  /** Whether a variable's name says its value is secret. */
  public static boolean namesASecret(String name) {
    return SECRET_NAME.matcher(name).find();
  }

  /** {@code text} with every known value and every secret of a known shape masked; null stays null. */
  public String apply(String text) {
    if (text == null) {
      return null;
    }
    String out = text;
    for (String secret : known) {
      out = out.replace(secret, MASK);
    }
    for (Shape shape : Shape.values()) {
      out = shape.mask(out);
    }
    return out;
  }

  /** Each line redacted. Secrets spanning lines (a private key) are masked by {@link #apply(String)} on the joined text. */
  public List<String> apply(List<String> lines) {
    return apply(String.join("\n", lines)).lines().toList();
  }
}
