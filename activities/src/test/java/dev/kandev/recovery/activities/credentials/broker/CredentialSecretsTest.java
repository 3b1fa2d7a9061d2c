package dev.kandev.recovery.activities.credentials.broker;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import dev.kandev.recovery.activities.credentials.CredentialException;
import dev.kandev.recovery.activities.credentials.IssuedToken;
import dev.kandev.recovery.activities.credentials.LeaseGrant;
import dev.kandev.recovery.activities.credentials.redemption.CredentialRedemptionServer;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.BrokerHarness;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.activities.testing.TestKeys;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/** No lease token, JWT, installation token or private key in logs, failures, results or snapshots. */
class CredentialSecretsTest {
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final BrokerHarness h = new BrokerHarness(db);

  @Test
  void aFullLeaseLifecycleLeaksNoSecret() throws Exception {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    Logger ours = (Logger) LoggerFactory.getLogger("dev.kandev");
    Level before = ours.getLevel();
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    root.addAppender(logs);
    ours.setLevel(Level.DEBUG);
    List<String> visible = new ArrayList<>();
    try (CredentialRedemptionServer server = CredentialRedemptionServer.start(h.broker, 0, sessionId -> Optional.of(ProcessHandle.current()))) {
      LeaseGrant grant = h.issue();
      visible.add(grant.toString());
      visible.add(Json.mapper().writeValueAsString(grant.snapshot()));
      IssuedToken token = h.broker.mintToken(grant.leaseId());
      visible.add(token.toString());
      HttpClient http = HttpClient.newHttpClient();
      String request = "protocol=https\nhost=github.com\npath=acme/widgets.git\n";
      h.github.failNext(500, 1);
      visible.add(post(http, server, token.token(), request));
      String ok = post(http, server, token.token(), request);
      assertThat(ok).startsWith("username=x-access-token");
      visible.add(post(http, server, token.token(), "protocol=https\nhost=github.com\npath=acme/gadgets.git\n"));
      visible.add(post(http, server, "C".repeat(43), request));
      h.moveSession(STARTING, FAILED);
      visible.add(post(http, server, token.token(), request));
      for (Runnable call : List.<Runnable>of(
          () -> h.broker.redeem(token.token(), "github.com", "acme/widgets", CallerCheck.ANYONE),
          () -> h.broker.mintToken(grant.leaseId()),
          () -> h.issue())) {
        try {
          call.run();
        } catch (CredentialException e) {
          visible.add(e.toString());
        }
      }
      h.broker.revokeSession("s1");

      List<String> secrets = new ArrayList<>();
      secrets.add(token.token());
      h.github.issued().forEach(i -> secrets.add(i.token()));
      secrets.addAll(h.github.receivedJwts());
      String pem = TestKeys.pkcs1Pem(h.appKeys.getPrivate());
      secrets.add(pem.split("\n")[1]);
      secrets.add(pem.split("\n")[5]);
      assertThat(secrets).hasSizeGreaterThan(4);

      for (ILoggingEvent event : logs.list) {
        visible.add(event.getFormattedMessage());
        if (event.getThrowableProxy() != null) {
          visible.add(ThrowableProxyUtil.asString(event.getThrowableProxy()));
        }
      }
      visible.add(db.fixtures().dump("credential_leases"));
      assertThat(logs.list).isNotEmpty();
      for (String text : visible) {
        for (String secret : secrets) {
          assertThat(text).doesNotContain(secret);
        }
      }
    } finally {
      root.detachAppender(logs);
      ours.setLevel(before);
    }
  }

  private static String post(HttpClient http, CredentialRedemptionServer server, String token, String body) throws Exception {
    return http.send(HttpRequest.newBuilder(server.url()).header("Authorization", "Bearer " + token)
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString()).body();
  }
}
