#!/usr/bin/env bash
# The compiled production install works without any dev dependency (no tsx, no TypeScript).
# In a fresh clone of this checkout's HEAD (committed changes only):
#   npm ci && npm run build && npm prune --omit=dev
# then, run from outside the clone (so no path depends on the working directory), on the embedded
# database and on a new database on a Postgres server:
#   svapi serve (first start on the embedded database: migrates and seeds from the compiled code),
#   svapi migrate, svapi load <dir>, svapi keys create/list, svapi serve: /healthz and GetMonster.
# Usage: scripts/check-pruned-install.sh [SERVER_URL]  (default postgres://postgres@127.0.0.1:5432/postgres;
# a database is created there and dropped at the end). Exits non-zero at the first failure.
set -euo pipefail
server_url=${1:-postgres://postgres@127.0.0.1:5432/postgres}
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
tmp=$(mktemp -d)
db="svapi_pruned_$(date +%s)_$$"
serve_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  psql "$server_url" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "check-pruned-install: $*" >&2; exit 1; }

echo "--- clone, npm ci, npm run build, npm prune --omit=dev"
git clone --quiet "$repo" "$tmp/svapi"
(cd "$tmp/svapi" && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build && npm prune --omit=dev --no-audit --no-fund --loglevel=error)
for dev in tsx typescript jest; do [ ! -e "$tmp/svapi/node_modules/$dev" ] || fail "node_modules/$dev is still installed after the prune"; done
cd "$tmp"
svapi() { node "$tmp/svapi/bin/svapi.js" "$@"; }

# serve_check [KEY_ID KEY]: `svapi serve` answers /healthz, and GetMonster with that credential (by
# default the demo credential it prints on a first start), then stops.
serve_check() {
  local out="$tmp/serve.out" url= id=${1:-} key=${2:-}
  node "$tmp/svapi/bin/svapi.js" serve --workers 1 >"$out" 2>&1 & # not the function: $! must be node's pid
  serve_pid=$!
  for _ in $(seq 1 600); do
    url=$(sed -n 's/^svapi listening on \(http[^ ]*\).*/\1/p' "$out")
    [ -n "$url" ] && break
    kill -0 "$serve_pid" 2>/dev/null || { cat "$out" >&2; fail "svapi serve exited before listening"; }
    sleep 0.2
  done
  [ -n "$url" ] || { cat "$out" >&2; fail "svapi serve did not listen within 120 s"; }
  if [ -z "$id" ]; then
    read -r id key < <(sed -n 's/.*demo credential: DevID=\([0-9]*\) DevKey=\([^ ]*\).*/\1 \2/p' "$out")
    [ -n "$id" ] || { cat "$out" >&2; fail "the first start printed no demo credential"; }
  fi
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/healthz")" = 200 ] || fail "/healthz did not answer 200"
  local monster
  monster=$(curl -sfG "$url/API/hunting.asmx/GetMonster" --data-urlencode "DevID=$id" --data-urlencode "DevKey=$key" -d MonsterID=1) \
    || fail "GetMonster failed"
  [[ $monster == *'<MonsterID>1</MonsterID>'* ]] || fail "GetMonster did not answer monster 1: $monster"
  kill "$serve_pid"; wait "$serve_pid" || true; serve_pid=
  echo "serve: /healthz 200, GetMonster 200 (DevID $id)"
}

# admin_checks: migrate, load the sample data, create a credential and list it; then serve with it.
admin_checks() {
  svapi migrate
  svapi load "$tmp/svapi/seeds/data"
  local created id key
  created=$(svapi keys create --name pruned-check --json)
  id=$(node -p "JSON.parse(process.argv[1]).DevID" "$created")
  key=$(node -p "JSON.parse(process.argv[1]).DevKey" "$created")
  [[ $(svapi keys list) == *pruned-check* ]] || fail "keys list does not show the new credential"
  serve_check "$id" "$key"
}

echo "--- embedded database: first start (migrates and seeds), then the commands"
export DATABASE_URL= SVAPI_DATA_DIR="$tmp/data" LOG_LEVEL=warn PORT=0 HOST=127.0.0.1
serve_check
admin_checks

echo "--- Postgres server: new database $db"
psql "$server_url" -qc "CREATE DATABASE $db" >/dev/null
export DATABASE_URL
DATABASE_URL=$(node -e 'const u = new URL(process.argv[1]); u.pathname = "/" + process.argv[2]; console.log(u.toString())' "$server_url" "$db")
admin_checks

echo "pruned install: ok"
