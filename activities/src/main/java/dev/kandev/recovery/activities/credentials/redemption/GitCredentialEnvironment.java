package dev.kandev.recovery.activities.credentials.redemption;

import dev.kandev.recovery.activities.credentials.IssuedToken;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The environment an agent child needs so that git asks the project's credential helper, which
 * redeems the lease at the broker. The returned map holds the secret lease token: pass it only to
 * the child process, never log or return it. It overrides any {@code GIT_CONFIG_COUNT} entries
 * of the parent environment.
 */
public final class GitCredentialEnvironment {
  public static final String BROKER_URL = "KANDEV_CREDENTIAL_BROKER_URL";
  public static final String LEASE = "KANDEV_CREDENTIAL_LEASE";
  public static final String LEASE_ID = "KANDEV_CREDENTIAL_LEASE_ID";

  private final URI brokerUrl;
  private final Path helper;

  /**
   * @param brokerUrl the redemption endpoint ({@link CredentialRedemptionServer#url()}); plain HTTP
   *     only to a loopback address
   * @param helper the installed helper script ({@link CredentialHelper#install})
   */
  public GitCredentialEnvironment(URI brokerUrl, Path helper) {
    this.brokerUrl = validate(brokerUrl);
    if (!helper.isAbsolute() || helper.toString().matches(".*[\\s'\"\\\\$`!].*")) {
      throw new IllegalArgumentException("credential helper path must be absolute without spaces or shell characters");
    }
    this.helper = helper;
  }

  /**
   * The environment for a child with one lease per repository. With one lease the helper is
   * configured for the host; with several, each repository URL (with and without {@code .git}) gets
   * the helper with {@code --lease-var KANDEV_CREDENTIAL_LEASE_<n>}, and other repositories on those
   * hosts get no helper.
   */
  public Map<String, String> forTokens(List<IssuedToken> tokens) {
    if (tokens.isEmpty()) {
      throw new IllegalArgumentException("a credential environment needs at least one lease");
    }
    Map<String, String> env = new LinkedHashMap<>();
    env.put(BROKER_URL, brokerUrl.toString());
    env.put("GIT_TERMINAL_PROMPT", "0");
    List<String[]> config = new ArrayList<>();
    // An empty value first resets helpers configured elsewhere, so only the broker answers.
    tokens.stream().map(IssuedToken::host).distinct()
        .forEach(host -> config.add(new String[] {"credential.https://" + host + ".helper", ""}));
    if (tokens.size() == 1) {
      IssuedToken token = tokens.get(0);
      env.put(LEASE, token.token());
      env.put(LEASE_ID, token.leaseId());
      config.add(new String[] {"credential.https://" + token.host() + ".helper", helper.toString()});
    } else {
      for (int i = 0; i < tokens.size(); i++) {
        IssuedToken token = tokens.get(i);
        String var = LEASE + "_" + i;
        env.put(var, token.token());
        env.put(LEASE_ID + "_" + i, token.leaseId());
        String repositoryUrl = "https://" + token.host() + token.path();
        for (String url : List.of(repositoryUrl, repositoryUrl + ".git")) {
          config.add(new String[] {"credential." + url + ".helper", ""});
          config.add(new String[] {"credential." + url + ".helper", helper + " --lease-var " + var});
        }
      }
    }
    config.add(new String[] {"credential.useHttpPath", "true"});
    env.put("GIT_CONFIG_COUNT", Integer.toString(config.size()));
    for (int i = 0; i < config.size(); i++) {
      env.put("GIT_CONFIG_KEY_" + i, config.get(i)[0]);
      env.put("GIT_CONFIG_VALUE_" + i, config.get(i)[1]);
    }
    return env;
  }

  private static URI validate(URI url) {
    if (url == null || !url.isAbsolute() || url.getHost() == null || url.getUserInfo() != null
        || url.getFragment() != null) {
      throw new IllegalArgumentException("credential broker URL must be absolute, without user info or fragment");
    }
    if ("https".equals(url.getScheme())) {
      return url;
    }
    if ("http".equals(url.getScheme()) && isLoopback(url.getHost())) {
      return url;
    }
    throw new IllegalArgumentException("credential broker URL must be https, or http to a loopback address");
  }

  private static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
