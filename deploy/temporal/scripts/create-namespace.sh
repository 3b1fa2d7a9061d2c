#!/bin/sh
# Creates the namespace and registers kandev-recovery's search attributes (all Keyword), so the
# Web UI can filter by them from the first resume on. Idempotent.
set -eu
NAMESPACE="${DEFAULT_NAMESPACE:-default}"
SEARCH_ATTRIBUTES="KandevSessionId KandevTaskId KandevAgentId KandevOutcome"

until temporal operator cluster health --address "${TEMPORAL_ADDRESS}"; do echo "waiting for ${TEMPORAL_ADDRESS}"; sleep 2; done
temporal operator namespace describe -n "$NAMESPACE" --address "${TEMPORAL_ADDRESS}" >/dev/null 2>&1 \
  || temporal operator namespace create -n "$NAMESPACE" --retention 7d --address "${TEMPORAL_ADDRESS}"
for name in $SEARCH_ATTRIBUTES; do
  temporal operator search-attribute list -n "$NAMESPACE" --address "${TEMPORAL_ADDRESS}" | grep -qw "$name" \
    || temporal operator search-attribute create -n "$NAMESPACE" --name "$name" --type Keyword --address "${TEMPORAL_ADDRESS}"
done
echo "namespace $NAMESPACE ready with search attributes $SEARCH_ATTRIBUTES"
