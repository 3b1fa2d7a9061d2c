-- The release after it contracts: it drops a column this release still writes (having stopped using it
-- itself), and says that only workers knowing V15 may run on the schema now.
ALTER TABLE task_sessions DROP COLUMN error_message;
UPDATE schema_compatibility SET oldest_compatible_version = 15;
