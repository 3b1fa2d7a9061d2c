-- What a next release's expand migration looks like (SchemaCompatibilityTest; the next release
-- DeploymentVersioningIT builds has it and writes the column): a defaulted column the previous
-- release's writes need not know of.
ALTER TABLE task_sessions ADD COLUMN upgrade_note TEXT NOT NULL DEFAULT '';
