#!/bin/sh
# The Temporal cluster's setup, one script for both places it runs: `npm run start:cluster`
# (platform/temporal-cluster.ts, with the schema tool and the CLI from ~/.cache/fleetflow on PATH) and the
# temporalio/admin-tools one-shots of docker-compose.yml. Every step is idempotent: a second start finds the
# databases, schemas, namespace and search attributes in place and goes on.
#
#   setup.sh schema     creates the databases DBNAME and VISIBILITY_DBNAME when missing and brings their
#                       schemas to the version the tool embeds (before the server starts). Reads SQL_PLUGIN,
#                       SQL_HOST, SQL_PORT, SQL_USER, SQL_PASSWORD.
#   setup.sh namespace  waits until the cluster answers SERVING, registers TEMPORAL_NAMESPACE (retention
#                       TEMPORAL_RETENTION) and FLEETFLOW_SEARCH_ATTRIBUTES ("Name=Type …", the list of
#                       workflows/search-attributes.ts), then waits until a visibility query naming every
#                       attribute is accepted. Reads TEMPORAL_ADDRESS.
set -eu

: "${DBNAME:=temporal}"
: "${VISIBILITY_DBNAME:=temporal_visibility}"
: "${TEMPORAL_NAMESPACE:=default}"
: "${TEMPORAL_RETENTION:=24h}"
: "${TEMPORAL_SETUP_TIMEOUT_SECONDS:=180}"
: "${FLEETFLOW_SEARCH_ATTRIBUTES:=}"

# retry WHAT COMMAND…: runs COMMAND once a second until it succeeds, for at most TEMPORAL_SETUP_TIMEOUT_SECONDS,
# then prints its output (the last attempt's answer goes to stderr when it never succeeds).
retry() {
  what=$1
  shift
  out=$(mktemp)
  waited=0
  until "$@" >"$out" 2>&1; do
    waited=$((waited + 1))
    if [ "$waited" -ge "$TEMPORAL_SETUP_TIMEOUT_SECONDS" ]; then
      echo "setup: $what did not succeed within $TEMPORAL_SETUP_TIMEOUT_SECONDS s; its last answer:" >&2
      cat "$out" >&2
      rm -f "$out"
      return 1
    fi
    sleep 1
  done
  cat "$out"
  rm -f "$out"
}

schema() {
  for db in "$DBNAME" "$VISIBILITY_DBNAME"; do
    if [ "$db" = "$DBNAME" ]; then name=postgresql/v12/temporal; else name=postgresql/v12/visibility; fi
    temporal-sql-tool --db "$db" create
    # On an existing schema setup-schema -v 0.0 changes nothing (its version is already past 0.0).
    temporal-sql-tool --db "$db" setup-schema -v 0.0
    temporal-sql-tool --db "$db" update-schema --schema-name "$name"
    echo "setup: database $db at the schema $name of this tool"
  done
}

serving() {
  temporal operator cluster health | grep -q SERVING
}

# A query naming every attribute with a value of its type: the frontend accepts it once its cache knows them.
probe_query() {
  query=''
  for pair in $FLEETFLOW_SEARCH_ATTRIBUTES; do
    name=${pair%%=*}
    case ${pair#*=} in
    Int | Double) value=0 ;;
    Bool) value=false ;;
    Datetime) value='"2000-01-01T00:00:00Z"' ;;
    *) value='"fleetflow-setup-probe"' ;;
    esac
    query="${query:+$query AND }$name = $value"
  done
  printf '%s' "$query"
}

namespace() {
  retry "cluster health at $TEMPORAL_ADDRESS" serving >/dev/null
  echo "setup: cluster at $TEMPORAL_ADDRESS is SERVING"
  if temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1; then
    echo "setup: namespace $TEMPORAL_NAMESPACE already registered"
  else
    temporal operator namespace create --namespace "$TEMPORAL_NAMESPACE" --retention "$TEMPORAL_RETENTION"
    echo "setup: namespace $TEMPORAL_NAMESPACE registered (retention $TEMPORAL_RETENTION)"
  fi
  # A new namespace reaches each service's namespace cache within about 10 s: until then some calls answer
  # "Namespace default is not found".
  registered=$(retry "listing the search attributes of $TEMPORAL_NAMESPACE" \
    temporal operator search-attribute list --namespace "$TEMPORAL_NAMESPACE")
  added=''
  for pair in $FLEETFLOW_SEARCH_ATTRIBUTES; do
    name=${pair%%=*}
    if printf '%s\n' "$registered" | grep -qw "$name"; then
      echo "setup: search attribute $name already registered"
    else
      retry "registering search attribute $name" temporal operator search-attribute create \
        --namespace "$TEMPORAL_NAMESPACE" --name "$name" --type "${pair#*=}" >/dev/null
      echo "setup: search attribute $name registered (${pair#*=})"
      added="$added $name"
    fi
  done
  query=$(probe_query)
  if [ -n "$query" ]; then
    retry "a visibility query naming every search attribute" \
      temporal workflow count --namespace "$TEMPORAL_NAMESPACE" --query "$query" >/dev/null
    echo "setup: visibility queries on the search attributes work"
  fi
  if [ -n "$added" ]; then
    # Each service (frontend, history, matching, worker) caches the attributes for 60 s after its last read;
    # the frontend's answer above says nothing of history's, which checks a workflow's upserts. Wait it out.
    echo "setup: waiting 60 s until every service's search-attribute cache knows$added"
    sleep 60
  fi
  echo "setup: namespace $TEMPORAL_NAMESPACE ready"
}

case "${1:-}" in
schema) schema ;;
namespace) namespace ;;
*)
  echo "usage: $0 schema|namespace" >&2
  exit 2
  ;;
esac
