#!/bin/sh
# Creates and migrates Temporal's two databases (persistence and visibility) with the
# temporal-sql-tool of the admin-tools image. Idempotent: a second run only applies new versions.
set -eu
# The password comes from the compose secret file, never from the compose file itself.
SQL_PASSWORD="$(cat "${SQL_PASSWORD_FILE}")"
export SQL_PASSWORD
SQL="temporal-sql-tool --plugin postgres12 --ep ${POSTGRES_SEEDS} -u ${POSTGRES_USER} -p ${DB_PORT}"
SCHEMA=/etc/temporal/schema/postgresql/v12

until nc -z -w 5 "${POSTGRES_SEEDS}" "${DB_PORT}"; do echo "waiting for ${POSTGRES_SEEDS}:${DB_PORT}"; sleep 1; done

$SQL --db temporal create || true
$SQL --db temporal setup-schema -v 0.0 || true
$SQL --db temporal update-schema -d "$SCHEMA/temporal/versioned"

$SQL --db temporal_visibility create || true
$SQL --db temporal_visibility setup-schema -v 0.0 || true
$SQL --db temporal_visibility update-schema -d "$SCHEMA/visibility/versioned"
echo "Temporal schemas are up to date"
