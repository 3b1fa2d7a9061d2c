package dev.kandev.recovery.workflows.resume;

/**
 * The lock and session steps of a resume, and the lock's release after a settle: as local
 * activities ({@link ResumeChanges#LOCAL_STORE_STEPS}), or as activities in histories from before.
 */
record StoreSteps(ResumeLockActivities locks, SessionActivities sessions, ResumeLockActivities unlocker) {}
