package dev.kandev.recovery.activities.credentials.broker;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.credentials.AttemptLeases;
import dev.kandev.recovery.activities.credentials.CredentialException;
import dev.kandev.recovery.activities.credentials.CredentialPolicy;
import dev.kandev.recovery.activities.credentials.CredentialResolver;
import dev.kandev.recovery.activities.credentials.GitCredential;
import dev.kandev.recovery.activities.credentials.IssuedToken;
import dev.kandev.recovery.activities.credentials.LeaseGrant;
import dev.kandev.recovery.activities.credentials.LeaseRecord;
import dev.kandev.recovery.activities.credentials.LeaseScope;
import dev.kandev.recovery.activities.credentials.ResolvedPolicy;
import dev.kandev.recovery.activities.store.CredentialScopeStore;
import dev.kandev.recovery.activities.store.LeaseAttemptStore;
import dev.kandev.recovery.activities.store.LeaseStore;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.model.GitCredentialSnapshot;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scoped git credential broker (Kandev's model): opaque, hashed, expiring leases bound to one
 * repository of one task session, authorized against the current database rows at issuance, at
 * minting and at every redemption. Issuance is split in two so no secret crosses Temporal between
 * activities: {@link #issueForAttempt} returns only non-secret data; the launch step calls {@link #mintToken}
 * right before spawning the agent and hands the token to the child through its environment.
 */
public final class CredentialBroker {
  /** Kandev's default (and maximum) lease TTL. */
  public static final Duration DEFAULT_TTL = Duration.ofHours(12);

  private static final Duration SWEEP_AFTER = Duration.ofDays(1);
  private static final Logger log = LoggerFactory.getLogger(CredentialBroker.class);

  private final Transactions transactions;
  private final CredentialPolicyResolver policies;
  private final Map<CredentialPolicy, CredentialResolver> resolvers = new EnumMap<>(CredentialPolicy.class);
  private final LeaseStore leases;
  private final LeaseAttemptStore attempts;
  private final CredentialScopeStore scopes;
  private final Clock clock;
  private final SecureRandom random = new SecureRandom();

  public CredentialBroker(
      Transactions transactions,
      CredentialPolicyResolver policies,
      List<CredentialResolver> resolvers,
      ObjectMapper json,
      Clock clock) {
    this(transactions, policies, resolvers, json, clock, StoreLayout.MIRROR);
  }

  /** A broker that authorizes against the tasks and sessions of {@code layout}: our mirror or Kandev's own tables. */
  public CredentialBroker(
      Transactions transactions,
      CredentialPolicyResolver policies,
      List<CredentialResolver> resolvers,
      ObjectMapper json,
      Clock clock,
      StoreLayout layout) {
    this.scopes = new CredentialScopeStore(layout);
    this.transactions = transactions;
    this.policies = policies;
    resolvers.forEach(r -> this.resolvers.put(r.policy(), r));
    this.leases = new LeaseStore(json);
    this.attempts = new LeaseAttemptStore(json);
    this.clock = clock;
  }

  /** A TTL of zero, negative or above 12 h becomes 12 h, as in Kandev. */
  public static Duration clampTtl(Duration ttl) {
    return ttl == null || ttl.isZero() || ttl.isNegative() || ttl.compareTo(DEFAULT_TTL) > 0 ? DEFAULT_TTL : ttl;
  }

  /**
   * Issues for every repository linked to the session's task ({@link #scopesForSession}) under the
   * policy of the session's executor ({@code task_sessions.executor_id}; its row in {@code
   * executor_credential_policies} wins over the workspace's), in one transaction: if any scope is
   * refused, no lease is created (Kandev validates every repository before the first lease). Each
   * scope is authorized, its policy resolved and checked, and for a policy other than {@code none} a
   * lease created without a usable token ({@link #mintToken} gives it one). No linked repository: no
   * lease.
   *
   * @throws CredentialException {@code SESSION_TERMINAL}, {@code SCOPE_DENIED} (also for an unknown
   *     session), {@code CONFIG_MISSING} or {@code CONFIG_INVALID}
   */
  public List<LeaseGrant> issueForSession(String sessionId, Duration ttl) {
    Duration leaseTtl = clampTtl(ttl);
    return transactions.inTransaction("issue credential leases for session " + sessionId, h -> {
      List<LeaseGrant> grants = issueAll(h, scopesForSession(h, sessionId), executorOf(h, sessionId), leaseTtl);
      leases.sweep(h, now(), SWEEP_AFTER);
      return grants;
    });
  }

  /**
   * {@link #issueForSession} once per resume attempt: a run of the lease step of the attempt
   * {@code fence} (the fencing token of its resume lock) that runs again because its result was lost
   * returns what the earlier run issued (same lease ids, same snapshot) rather than a second set of
   * leases, as long as that result still serves: every repository of the session's task whose
   * current policy needs a lease has one from the earlier run, not revoked, not expired and bound to
   * that policy, and no other. Otherwise (a lease revoked or expired meanwhile, the policy or the
   * repositories changed) the earlier run's leases could not be used by the launch (its mint would
   * refuse them) and no one else uses them: they are revoked and the session's leases issued anew,
   * recorded as the attempt's. The scopes are authorized either way, so a session that became
   * terminal is refused as at first issuance. One transaction; a concurrent run of the same attempt
   * fails (its leases roll back) and its retry finds this one's.
   *
   * @throws CredentialException as {@link #issueForSession}
   */
  public AttemptLeases issueForAttempt(String sessionId, Fence fence, Duration ttl) {
    if (fence.isNone()) {
      throw new IllegalArgumentException("a resume attempt's leases need its fence, got none");
    }
    Duration leaseTtl = clampTtl(ttl);
    return transactions.inTransaction("issue credential leases for session " + sessionId + " fence " + fence.token(), h -> {
      if (!ResumeLockStore.holds(h, sessionId, fence)) {
        // A stale workflow task of a resume that ended or was fenced out: no lease for it.
        throw CredentialException.resumeLockLost(sessionId, fence.token());
      }
      List<LeaseScope> scopes = scopesForSession(h, sessionId);
      String executorId = executorOf(h, sessionId);
      Instant now = now();
      Optional<AttemptLeases> earlier = attempts.forUpdate(h, sessionId, fence);
      if (earlier.isPresent() && stillServes(h, earlier.get(), scopes, executorId, now)) {
        log.info("credential lease(s) {} of session {} fence {} issued by an earlier run of the step: reused",
            earlier.get().leaseIds(), sessionId, fence.token());
        return earlier.get();
      }
      earlier.ifPresent(stale -> stale.leaseIds().forEach(id -> leases.revoke(h, id, now)));
      AttemptLeases issued = AttemptLeases.issued(issueAll(h, scopes, executorId, leaseTtl));
      if (earlier.isPresent()) {
        attempts.replace(h, sessionId, fence, issued, now);
      } else {
        attempts.insert(h, sessionId, fence, issued, now);
      }
      leases.sweep(h, now, SWEEP_AFTER);
      return issued;
    });
  }

  /** Whether an attempt's earlier result is what issuing now would give, but for the lease ids. */
  private boolean stillServes(Handle h, AttemptLeases earlier, List<LeaseScope> scopes, String executorId, Instant now) {
    for (LeaseScope scope : scopes) {
      ScopeAuthorizer.authorize(h, this.scopes, scope);
    }
    if ((earlier.snapshot() == null) != scopes.isEmpty()) {
      return false;
    }
    Map<String, LeaseRecord> byRepository = new HashMap<>();
    for (String leaseId : earlier.leaseIds()) {
      Optional<LeaseRecord> lease = leases.byIdForUpdate(h, leaseId);
      if (lease.isEmpty() || lease.get().unusableReason(now) != null
          || !Objects.equals(lease.get().executorId(), executorId)) {
        return false;
      }
      byRepository.put(lease.get().scope().repositoryId(), lease.get());
    }
    int needed = 0;
    for (LeaseScope scope : scopes) {
      ResolvedPolicy policy = policies.resolve(h, scope.workspaceId(), executorId);
      if (policy.policy() == CredentialPolicy.NONE) {
        continue;
      }
      needed++;
      LeaseRecord lease = byRepository.get(scope.repositoryId());
      if (lease == null || !lease.binding().equals(policy) || !lease.scope().equals(scope)) {
        return false;
      }
    }
    return needed == byRepository.size();
  }

  /** The session's executor, or null when it has none. */
  private String executorOf(Handle h, String sessionId) {
    return scopes.executorOf(h, sessionId).orElse(null);
  }

  private List<LeaseGrant> issueAll(Handle h, List<LeaseScope> scopes, String executorId, Duration leaseTtl) {
    List<LeaseGrant> grants = new ArrayList<>();
    for (LeaseScope scope : scopes) {
      grants.add(issue(h, scope, executorId, leaseTtl));
    }
    return grants;
  }

  private LeaseGrant issue(Handle h, LeaseScope scope, String executorId, Duration leaseTtl) {
    ScopeAuthorizer.authorize(h, scopes, scope);
    ResolvedPolicy policy = policies.resolve(h, scope.workspaceId(), executorId);
    Instant now = now();
    if (policy.policy() == CredentialPolicy.NONE) {
      log.info("credential policy none ({}) for session {} repository {}: no lease",
          policy.source(), scope.sessionId(), scope.repository());
      return new LeaseGrant(null, null, snapshot(scope, policy, null, null, now));
    }
    resolver(policy).validate(policy);
    LeaseRecord lease =
        new LeaseRecord("lease-" + UUID.randomUUID(), scope, executorId, policy, leaseTtl, now.plus(leaseTtl), null, now);
    leases.insert(h, lease);
    log.info("issued credential lease {} ({} from {}) for session {} repository {}", lease.id(),
        policy.policy().id(), policy.source(), scope.sessionId(), scope.repository());
    return new LeaseGrant(lease.id(), lease.expiresAt(), snapshot(scope, policy, lease.id(), lease.expiresAt(), now));
  }

  /**
   * Re-authorizes the lease's scope and gives it a new secret token (any earlier token stops
   * working); only the token's SHA-256 is stored. The TTL restarts.
   *
   * @throws CredentialException {@code LEASE_INVALID} (unknown, revoked, expired, policy changed),
   *     {@code SESSION_TERMINAL} or {@code SCOPE_DENIED}
   */
  public IssuedToken mintToken(String leaseId) {
    return transactions.inTransaction("mint token for credential lease " + leaseId, h -> {
      LeaseRecord lease =
          leases.byIdForUpdate(h, leaseId).orElseThrow(() -> CredentialException.leaseInvalid("unknown lease " + leaseId));
      Instant now = now();
      rejectUnusable(lease, now);
      ScopeAuthorizer.authorize(h, scopes, lease.scope());
      requireCurrentBinding(h, lease);
      String token = newToken();
      Instant expiresAt = now.plus(lease.ttl());
      leases.setTokenHash(h, lease.id(), hash(token), now, expiresAt);
      log.info("minted token for credential lease {} (session {})", lease.id(), lease.scope().sessionId());
      return new IssuedToken(lease.id(), lease.scope().host(), lease.scope().path(), expiresAt, token);
    });
  }

  /**
   * Redeems a lease token for the live credential of the repository git asks for: looks the lease
   * up by hash, matches host and path, re-authorizes, checks the policy is still the one the lease
   * was bound to, checks the caller is the session's agent (or its descendant), resolves the
   * credential (never stored) and renews the lease.
   *
   * @param path the path as git sends it ({@code owner/repo.git}) or canonical
   * @param caller who asks, as the redemption endpoint sees it
   * @throws CredentialException any type; {@code PROVIDER_UNAVAILABLE} is retryable
   */
  public GitCredential redeem(String token, String host, String path, CallerCheck caller) {
    if (token == null || !token.matches("[A-Za-z0-9_-]{43}")) {
      throw CredentialException.leaseInvalid("malformed lease token");
    }
    byte[] hash = hash(token);
    LeaseRecord lease = transactions.inTransaction("redeem credential lease", h -> authorizedLease(h, hash, host, path));
    if (!caller.isAgentOf(lease.scope().sessionId())) {
      throw CredentialException.scopeDenied("lease " + lease.id() + " redeems only for a process of session "
          + lease.scope().sessionId() + "'s agent on the worker that runs it");
    }
    GitCredential credential = resolver(lease.binding()).resolve(lease.scope(), lease.binding());
    // Authorize again after the provider call, so a session that became terminal meanwhile gets nothing.
    transactions.inTransaction("renew credential lease " + lease.id(), h -> {
      LeaseRecord current = authorizedLease(h, hash, host, path);
      Instant now = now();
      leases.renew(h, current.id(), now, now.plus(current.ttl()));
      return null;
    });
    log.info("redeemed credential lease {} for {}{}", lease.id(), lease.scope().host(), lease.scope().path());
    return credential;
  }

  /** Revokes one lease; revoking an unknown or already revoked lease does nothing. */
  public void revoke(String leaseId) {
    boolean revoked = transactions.inTransaction("revoke credential lease " + leaseId,
        h -> leases.revoke(h, leaseId, now()));
    if (revoked) {
      log.info("revoked credential lease {}", leaseId);
    }
  }

  /** Revokes every live lease of a session (compensation, session end); returns how many. */
  public int revokeSession(String sessionId) {
    int revoked = transactions.inTransaction("revoke credential leases of session " + sessionId,
        h -> leases.revokeSession(h, sessionId, now()));
    log.info("revoked {} credential lease(s) of session {}", revoked, sessionId);
    return revoked;
  }

  /**
   * Revokes the leases {@link #issueForAttempt} issued for the attempt {@code fence} (a lost workflow
   * task's, which the resume's history never saw), and no other; returns how many were still live.
   */
  public int revokeAttempt(String sessionId, Fence fence) {
    Instant now = now();
    int revoked = transactions.inTransaction("revoke the credential leases of session " + sessionId + " fence " + fence.token(),
        h -> attempts.forUpdate(h, sessionId, fence)
            .map(attempt -> (int) attempt.leaseIds().stream().filter(id -> leases.revoke(h, id, now)).count())
            .orElse(0));
    if (revoked > 0) {
      log.info("revoked {} credential lease(s) of session {} that a lost workflow task of fence {} issued",
          revoked, sessionId, fence.token());
    }
    return revoked;
  }

  /**
   * The lease scopes of a session: one per repository linked to its task, in link order.
   *
   * @throws CredentialException {@code SCOPE_DENIED} for an unknown session
   */
  public List<LeaseScope> scopesForSession(String sessionId) {
    return transactions.inTransaction("read repositories of session " + sessionId, h -> scopesForSession(h, sessionId));
  }

  private List<LeaseScope> scopesForSession(Handle h, String sessionId) {
    if (!scopes.sessionExists(h, sessionId)) {
      throw CredentialException.scopeDenied("unknown session " + sessionId);
    }
    return scopes.scopesOfSession(h, sessionId);
  }

  private LeaseRecord authorizedLease(Handle h, byte[] hash, String host, String path) {
    LeaseRecord lease =
        leases.byTokenHash(h, hash).orElseThrow(() -> CredentialException.leaseInvalid("unknown lease token"));
    rejectUnusable(lease, now());
    boolean matches;
    try {
      matches = lease.scope().matches(host, path);
    } catch (IllegalArgumentException e) {
      throw CredentialException.scopeDenied("malformed host or path: " + e.getMessage());
    }
    if (!matches) {
      throw CredentialException.scopeDenied("lease " + lease.id() + " is not for this repository");
    }
    ScopeAuthorizer.authorize(h, scopes, lease.scope());
    requireCurrentBinding(h, lease);
    return lease;
  }

  /** A lease serves only the policy it was issued under; a changed policy needs a new lease. */
  private void requireCurrentBinding(Handle h, LeaseRecord lease) {
    ResolvedPolicy current = policies.resolve(h, lease.scope().workspaceId(), lease.executorId());
    if (!current.equals(lease.binding())) {
      throw CredentialException.leaseInvalid("credential policy changed since lease " + lease.id() + " was issued");
    }
  }

  /** Truncated to PostgreSQL's timestamp precision, so stored and compared instants agree. */
  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MICROS);
  }

  private static void rejectUnusable(LeaseRecord lease, Instant now) {
    String reason = lease.unusableReason(now);
    if (reason != null) {
      throw CredentialException.leaseInvalid(reason);
    }
  }

  private CredentialResolver resolver(ResolvedPolicy policy) {
    CredentialResolver resolver = resolvers.get(policy.policy());
    if (resolver == null) {
      throw CredentialException.configMissing("no credential resolver for policy " + policy.policy().id());
    }
    return resolver;
  }

  private static GitCredentialSnapshot snapshot(
      LeaseScope scope, ResolvedPolicy policy, String leaseId, Instant expiresAt, Instant now) {
    return new GitCredentialSnapshot(
        GitCredentialSnapshot.VERSION, policy.policy().id(), scope.provider(), scope.host(), scope.repository(),
        policy.installationId(), policy.permissions(), leaseId, expiresAt == null ? null : expiresAt.toString(),
        policy.source(), now.toString());
  }

  private String newToken() {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The SHA-256 of a lease token: all the lease row keeps of it. */
  static byte[] hash(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
