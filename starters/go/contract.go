// Package recovery starts and follows kandev-recovery's workflows from Go, as the Kandev API does:
// by workflow type name, with the workflow ids, task queue and conflict policies of
// docs/contract.md, and plain structs for the JSON payloads. It needs nothing of the Java code.
package recovery

// What docs/contract.md fixes for every starter.
const (
	// ContractVersion is the version of docs/contract.md this starter speaks (its "Contract version"):
	// it works with any worker whose contract has the same major and at least this minor.
	ContractVersion = "1.1"
	// TaskQueue is the worker's default task queue (worker setting KANDEV_TASK_QUEUE).
	TaskQueue = "kandev-recovery"
	// ResumeWorkflowType resumes, or on the user's explicit choice starts fresh, one task session.
	ResumeWorkflowType = "ResumeSessionWorkflow"
	// RuntimeUpdateWorkflowType updates one built-in managed npm agent runtime.
	RuntimeUpdateWorkflowType = "RuntimeUpdateWorkflow"
	// ProgressQuery is the query both workflows answer with what they did so far.
	ProgressQuery = "progress"

	// The Keyword search attributes the workflows set, to list runs by.
	SearchAttributeSessionID = "KandevSessionId"
	SearchAttributeTaskID    = "KandevTaskId"
	SearchAttributeAgentID   = "KandevAgentId"
	SearchAttributeOutcome   = "KandevOutcome"

	// FailureInvalidRequest is the failure type of a run whose input could not be used; it has no details.
	FailureInvalidRequest = "INVALID_REQUEST"
)

// MaxIDBytes is the longest session or agent id, in bytes: with its 15-byte prefix it makes a
// workflow id of at most 255 bytes, the most Temporal on SQL (PostgreSQL, MySQL) stores.
const MaxIDBytes = 240

// ResumeWorkflowID is the id of the resume of a session: one runs per session at a time.
func ResumeWorkflowID(sessionID string) string { return "resume-session-" + sessionID }

// RuntimeUpdateWorkflowID is the id of the runtime update of an agent: one runs per agent at a time.
func RuntimeUpdateWorkflowID(agentID string) string { return "runtime-update-" + agentID }

// ResumeMode says what a resume does with the stored provider-native session.
type ResumeMode string

const (
	// ModeResume loads the stored provider session (session/load); never silently a new one.
	ModeResume ResumeMode = "RESUME"
	// ModeStartFresh is the user's explicit choice: clear the stored identity, then session/new.
	ModeStartFresh ResumeMode = "START_FRESH"
)

// ResumeRequest is the input of ResumeSessionWorkflow.
type ResumeRequest struct {
	SessionID string     `json:"sessionId"`
	Mode      ResumeMode `json:"mode"`
	// Reason is why the resume happens, for the operator: "user" (the default), ...; it changes
	// nothing the resume does.
	Reason string `json:"reason,omitempty"`
	// RequestedBy is who asked, for the operator: a user id, "kandev-api", ...
	RequestedBy string `json:"requestedBy,omitempty"`
	// HostWait is how long the launch waits for a worker of the session's host. Leave it empty
	// (HostWaitConfigured): HostWaitRestartRecovery is what a worker's restart recovery asks for.
	HostWait ResumeHostWait `json:"hostWait,omitempty"`
}

// ResumeHostWait says how long a resume's launch waits for a worker of the session's host.
type ResumeHostWait string

const (
	// HostWaitConfigured is the workers' setting KANDEV_HOST_WAIT_SECONDS (default 60 s).
	HostWaitConfigured ResumeHostWait = "CONFIGURED"
	// HostWaitRestartRecovery is 30 minutes: for the resumes a worker's restart recovery starts for
	// the sessions its host lost (that worker is the host's own and alive; the host may be busy).
	HostWaitRestartRecovery ResumeHostWait = "RESTART_RECOVERY"
)

// ResumeOutcome values of a successful resume, and the KandevOutcome search attribute of the others.
const (
	OutcomeResumed      = "RESUMED"
	OutcomeStartedFresh = "STARTED_FRESH"
	OutcomeFailed       = "FAILED"
	// OutcomeRejected is only on resumes from before one name per outcome: refused before anything
	// changed. Such a resume is now OutcomeFailed, its ResumeFailure's SessionState empty.
	OutcomeRejected  = "REJECTED"
	OutcomeCancelled = "CANCELLED"
)

// ResumeResult is what a successful ResumeSessionWorkflow returns.
type ResumeResult struct {
	SessionID  string `json:"sessionId"`
	TaskID     string `json:"taskId"`
	Outcome    string `json:"outcome"`
	FinalState string `json:"finalState"`
	// ProviderSessionID is the provider-native session id now in use.
	ProviderSessionID string `json:"providerSessionId"`
	// Loaded is true if the stored session was loaded (session/load), false if newly created.
	Loaded bool `json:"loaded"`
	// CancelledLate: the run ended CANCELED, the cancel having arrived once the resume settled; the
	// session resumed, ProviderSessionID and TaskID are unknown (the SDK discarded the result). Not
	// part of the payload.
	CancelledLate bool `json:"-"`
}

// ResumeFailure is the details of a failed resume's ApplicationError, whose type is FailureType.
type ResumeFailure struct {
	SessionID   string `json:"sessionId"`
	Step        string `json:"step"`
	FailureType string `json:"failureType"`
	Message     string `json:"message"`
	// SessionState is the session's state after recovery handling.
	SessionState string `json:"sessionState"`
	// RecoveryActions is what the user can do next: RESUME, START_FRESH; empty when nothing changed.
	RecoveryActions []ResumeMode `json:"recoveryActions"`
}

// ResumeProgress answers the progress query of a resume: the current step and what happened so far.
type ResumeProgress struct {
	SessionID string     `json:"sessionId"`
	Mode      ResumeMode `json:"mode"`
	// Step is one of ACQUIRE_LOCK, READ_CONTEXT, CLEAR_IDENTITY, MARK_STARTING, ISSUE_CREDENTIAL_LEASE,
	// PERSIST_CREDENTIAL_SNAPSHOT, LAUNCH_AGENT, SETTLE_SESSION, COMPENSATE, RELEASE_LOCK, DONE.
	Step  string   `json:"step"`
	Lines []string `json:"lines"`
}

// RuntimeUpdateRequest is the input of RuntimeUpdateWorkflow. Only built-in agent ids are accepted.
type RuntimeUpdateRequest struct {
	AgentID     string `json:"agentId"`
	RequestedBy string `json:"requestedBy,omitempty"`
	// Host is the executor host whose runtime is updated (its workers run the npm steps); empty: any
	// worker, right when all workers share one host.
	Host string `json:"host,omitempty"`
}

// RuntimeUpdateResult is what a successful RuntimeUpdateWorkflow returns, and (with Status FAILED)
// the details of a failed one's ApplicationError.
type RuntimeUpdateResult struct {
	JobID       string `json:"jobId"`
	AgentID     string `json:"agentId"`
	PackageSpec string `json:"packageSpec"`
	// Status is SUCCEEDED or FAILED.
	Status string `json:"status"`
	// Attempts is how often the update command ran (1, or 2 after a repair).
	Attempts int `json:"attempts"`
	// Repaired is true only when the repair removed the package's _npx tree.
	Repaired bool `json:"repaired"`
	// Repair is what the cache repair did: NOT_RUN, REMOVED, NOTHING_TO_REMOVE, REFUSED or FAILED.
	Repair   string   `json:"repair"`
	Progress []string `json:"progress"`
	// Error and ErrorType are empty strings on success, never null.
	Error     string `json:"error"`
	ErrorType string `json:"errorType"`
	// Probe is the agent's answer to ACP initialize; nil unless the probe passed.
	Probe *ProbeInfo `json:"probe"`
}

// ProbeInfo is what the updated agent answered to ACP initialize.
type ProbeInfo struct {
	AgentName       string `json:"agentName"`
	AgentVersion    string `json:"agentVersion"`
	ProtocolVersion int    `json:"protocolVersion"`
	LoadSession     bool   `json:"loadSession"`
}

// RuntimeUpdateProgress answers the progress query of a runtime update.
type RuntimeUpdateProgress struct {
	JobID   string `json:"jobId"`
	AgentID string `json:"agentId"`
	// Status is one of queued, updating, repairing, retrying, probing, succeeded, failed.
	Status   string   `json:"status"`
	Attempts int      `json:"attempts"`
	Repaired bool     `json:"repaired"`
	Repair   string   `json:"repair"`
	Lines    []string `json:"lines"`
	Error    string   `json:"error"`
}
