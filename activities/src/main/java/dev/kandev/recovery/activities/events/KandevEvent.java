package dev.kandev.recovery.activities.events;

import java.util.UUID;

/**
 * One event for Kandev's bus as it goes on the wire: the envelope's id (the same on every publish,
 * so a duplicate is recognisable), the subject it is published on, and the envelope's JSON.
 */
public record KandevEvent(UUID id, String subject, String envelope) {}
