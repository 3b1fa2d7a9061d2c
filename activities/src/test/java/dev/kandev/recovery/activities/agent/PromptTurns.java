package dev.kandev.recovery.activities.agent;

import static dev.kandev.recovery.workflows.model.SessionState.RUNNING;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kandev.recovery.activities.acp.AcpHandshake;
import dev.kandev.recovery.activities.acp.AcpNotifications;
import dev.kandev.recovery.activities.acp.AcpRemoteException;
import dev.kandev.recovery.activities.acp.AcpTransportClosedException;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.TaskStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.activities.store.TranscriptMessage;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.store.TranscriptStore;
import dev.kandev.recovery.activities.store.kandev.KandevEventOutbox;
import dev.kandev.recovery.activities.store.kandev.KandevLayoutStores;
import dev.kandev.recovery.activities.store.TransitionResult;
import dev.kandev.recovery.workflows.model.TaskState;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prompt turns with the agents of an {@link AgentHost}, run the way Kandev runs them, so that tests
 * can make the states a restart finds. No product code runs a turn: the worker launches and resumes
 * agents; turns are Kandev's.
 *
 * <p>A turn goes WAITING_FOR_INPUT → RUNNING (task IN_PROGRESS, in the same transaction), {@code
 * session/prompt} with its updates, then the turn's messages are persisted and only then the session
 * returns to WAITING_FOR_INPUT with its task in REVIEW, by the settle a resume uses ({@link
 * SessionStore#settle}). A turn that cannot finish still persists what arrived and settles the
 * session at WAITING_FOR_INPUT with the error, then throws.
 */
public final class PromptTurns {
  private static final Logger log = LoggerFactory.getLogger(PromptTurns.class);
  private static final int STORED_ERROR_CHARS = 2000;

  private final AgentHost host;
  private final Transactions transactions;
  private final StoreLayout layout;
  private final KandevLayoutStores stores;
  private final SessionStore sessions;
  private final TaskStore tasks;
  private final Duration turnTimeout;
  private final Duration cancelGrace;
  private final ObjectMapper json = Json.mapper();
  /** The state of each agent's current turn, by execution id. */
  private final Map<String, Turn> turns = new ConcurrentHashMap<>();

  /**
   * @param turnTimeout how long a turn may take before it is cancelled
   * @param cancelGrace how long the agent then has to acknowledge the cancel before it is stopped
   */
  public PromptTurns(AgentHost host, Transactions transactions, Duration turnTimeout, Duration cancelGrace) {
    this(host, transactions, turnTimeout, cancelGrace, StoreLayout.MIRROR);
  }

  /**
   * On the rows of {@code layout}. On Kandev's own tables the turn's messages go in through the
   * replay path ({@link TranscriptStore#recordReplay}), which skips a message identical to one the
   * transcript has: enough for the tests' turns, which is all this stand-in is for.
   */
  public PromptTurns(AgentHost host, Transactions transactions, Duration turnTimeout, Duration cancelGrace,
      StoreLayout layout) {
    this.host = host;
    this.transactions = transactions;
    this.layout = layout;
    this.stores = KandevLayoutStores.of(layout, json, KandevEventOutbox.NONE);
    this.sessions = stores.sessions();
    this.tasks = new TaskStore();
    this.turnTimeout = turnTimeout;
    this.cancelGrace = cancelGrace;
  }

  /** With a turn timeout of a minute and 5 s for a cancel. */
  public PromptTurns(AgentHost host, Transactions transactions) {
    this(host, transactions, Duration.ofMinutes(1), Duration.ofSeconds(5));
  }

  /** With a turn timeout of a minute and 5 s for a cancel, on the rows of {@code layout}. */
  public PromptTurns(AgentHost host, Transactions transactions, StoreLayout layout) {
    this(host, transactions, Duration.ofMinutes(1), Duration.ofSeconds(5), layout);
  }

  /** One turn's progress: whether the prompt went out, and whether a cancel was asked for. */
  private static final class Turn {
    final ReentrantLock lock = new ReentrantLock();
    volatile boolean promptSent;
    volatile boolean cancelRequested;
  }

  /**
   * Runs one prompt turn.
   *
   * @throws IllegalStateException no agent runs for the session here, a turn is in progress, or
   *     the session is not WAITING_FOR_INPUT
   * @throws AgentTurnException the turn did not finish
   */
  public TurnResult prompt(String sessionId, String text) {
    RunningAgent agent = host.running(sessionId).orElseThrow(
        () -> new IllegalStateException("no agent is running for session " + sessionId + " on this worker"));
    Turn turn = turns.computeIfAbsent(agent.executionId, id -> new Turn());
    if (!turn.lock.tryLock()) {
      throw new IllegalStateException("a prompt turn is already in progress for session " + sessionId);
    }
    try {
      TransitionResult started = transactions.inTransaction("start a prompt turn of session " + sessionId, h -> {
        TransitionResult result = sessions.transition(
            h, sessionId, EnumSet.of(WAITING_FOR_INPUT), RUNNING, "prompt turn started", null, Fence.none());
        if (result.won()) {
          startTaskTurn(h, sessionId);
        }
        return result;
      });
      if (!started.won()) {
        throw new IllegalStateException(
            "session " + sessionId + " is " + started.now() + "; a prompt turn starts from WAITING_FOR_INPUT");
      }
      int persisted = appendLive(sessionId, List.of(new TranscriptMessage("user", text, null)));
      agent.collector.start();
      try {
        String stopReason = runTurn(agent, turn, text);
        List<TranscriptMessage> messages = agent.collector.finish();
        persisted += appendLive(sessionId, messages);
        settle(sessionId, "prompt turn finished: " + stopReason, null);
        return new TurnResult(stopReason, agentText(messages), persisted);
      } catch (AgentTurnException e) {
        appendLive(sessionId, agent.collector.finish());
        settle(sessionId, "prompt turn failed", stored(e.getMessage()));
        throw e;
      } finally {
        turn.promptSent = false;
        turn.cancelRequested = false;
      }
    } finally {
      turn.lock.unlock();
    }
  }

  private String runTurn(RunningAgent agent, Turn turn, String text) {
    ObjectNode params = json.createObjectNode().put("sessionId", agent.providerSessionId());
    params.putArray("prompt").addObject().put("type", "text").put("text", text);
    CompletableFuture<JsonNode> answer = agent.connection.requestAsync("session/prompt", params);
    turn.promptSent = true;
    try {
      if (turn.cancelRequested) {
        sendCancel(agent);
      }
      try {
        return agent.connection.await(answer, "session/prompt", turnTimeout).path("stopReason").asText("end_turn");
      } catch (TimeoutException e) {
        log.warn("session {}: turn exceeded {}; cancelling it", agent.sessionId, turnTimeout);
        sendCancel(agent);
        try {
          return agent.connection.await(answer, "session/prompt", cancelGrace).path("stopReason").asText("cancelled");
        } catch (TimeoutException notAcknowledged) {
          host.stop(agent.sessionId);
          throw new AgentTurnException("the turn exceeded " + turnTimeout
              + " and the agent did not acknowledge the cancel; the agent was stopped", null, agent.stderrTail(), e);
        }
      }
    } catch (AcpRemoteException e) {
      throw new AgentTurnException("the agent answered session/prompt with an error " + e.error().describe(),
          null, agent.stderrTail(), e);
    } catch (AcpTransportClosedException e) {
      Integer exitCode = agent.process.exitCodeWithin(AcpHandshake.EXIT_OBSERVATION);
      throw new AgentTurnException("the agent transport closed during the turn"
          + (exitCode == null ? "" : " (the process exited)"), exitCode, agent.stderrTail(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AgentTurnException("interrupted while waiting for the turn", null, agent.stderrTail(), e);
    }
  }

  private void startTaskTurn(Handle h, String sessionId) {
    if (!layout.isKandev()) {
      tasks.transitionTaskOf(h, sessionId, TaskState.BEFORE_TURN, TaskState.IN_PROGRESS);
      return;
    }
    String k = layout.kandevSchema();
    h.createUpdate("UPDATE " + k + ".tasks t SET state = 'IN_PROGRESS', updated_at = now() AT TIME ZONE 'UTC'"
            + " FROM " + k + ".task_sessions s WHERE s.id = :sessionId AND t.id = s.task_id AND t.state = ANY(:from)")
        .bind("sessionId", sessionId)
        .bindArray("from", String.class, TaskState.BEFORE_TURN.stream().map(Enum::name).toList())
        .execute();
  }

  private int appendLive(String sessionId, List<TranscriptMessage> messages) {
    return transactions.inTransaction("append to the transcript of session " + sessionId,
        h -> layout.isKandev() ? stores.transcript().recordReplay(h, sessionId, messages)
            : TestStores.appendLive(h, sessionId, messages));
  }

  /** The turn's response is persisted before this: the session settles and its task goes to REVIEW, together. */
  private void settle(String sessionId, String reason, String error) {
    TransitionResult settled = transactions.inTransaction("settle the turn of session " + sessionId, h -> sessions.settle(
        h, sessionId, EnumSet.of(RUNNING), EnumSet.of(TaskState.IN_PROGRESS), reason, error, Fence.none()));
    if (!settled.won()) {
      log.info("session {}: turn ended but the session is {} now; left as it is", sessionId, settled.now());
    }
  }

  private static String agentText(List<TranscriptMessage> messages) {
    return messages.stream().filter(m -> m.role().equals("agent")).map(TranscriptMessage::content)
        .collect(Collectors.joining("\n"));
  }

  /** Asks the agent to end the current turn; the turn then finishes with stop reason {@code cancelled}. */
  public void cancelTurn(String sessionId) {
    RunningAgent agent = host.running(sessionId).orElse(null);
    Turn turn = agent == null ? null : turns.get(agent.executionId);
    if (turn == null || !turn.lock.isLocked()) {
      return;
    }
    // Whichever of this and the turn sees the other's flag sends the cancel: never lost, maybe twice.
    turn.cancelRequested = true;
    if (!turn.promptSent) {
      return;
    }
    try {
      sendCancel(agent);
    } catch (AcpTransportClosedException e) {
      log.debug("session {}: cancel not sent, transport closed", sessionId);
    }
  }

  private void sendCancel(RunningAgent agent) throws AcpTransportClosedException {
    AcpNotifications.send(agent.connection, "session/cancel", json.createObjectNode().put("sessionId", agent.providerSessionId()));
  }

  private static String stored(String text) {
    return text.length() <= STORED_ERROR_CHARS ? text : text.substring(0, STORED_ERROR_CHARS) + "…";
  }
}
