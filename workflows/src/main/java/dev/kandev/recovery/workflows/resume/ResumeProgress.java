package dev.kandev.recovery.workflows.resume;

import java.util.List;

/** Answer of the {@code progress} query: the current step and what happened so far. */
public record ResumeProgress(String sessionId, ResumeMode mode, ResumeStep step, List<String> lines) {}
