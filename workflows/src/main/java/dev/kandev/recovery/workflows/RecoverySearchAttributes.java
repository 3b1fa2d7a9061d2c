package dev.kandev.recovery.workflows;

import io.temporal.common.SearchAttributeKey;
import java.util.List;

/** Custom search attributes an operator filters recovery workflows by in the Web UI. */
public final class RecoverySearchAttributes {
  public static final SearchAttributeKey<String> SESSION_ID = SearchAttributeKey.forKeyword("KandevSessionId");
  public static final SearchAttributeKey<String> TASK_ID = SearchAttributeKey.forKeyword("KandevTaskId");
  public static final SearchAttributeKey<String> AGENT_ID = SearchAttributeKey.forKeyword("KandevAgentId");
  public static final SearchAttributeKey<String> OUTCOME = SearchAttributeKey.forKeyword("KandevOutcome");

  /** All of them, for registration (dev mode, docker compose). All are Keyword attributes. */
  public static final List<SearchAttributeKey<String>> ALL = List.of(SESSION_ID, TASK_ID, AGENT_ID, OUTCOME);

  private RecoverySearchAttributes() {}
}
