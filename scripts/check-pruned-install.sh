#!/usr/bin/env bash
# The compiled production install works without any dev dependency (no tsx, no TypeScript), with
# the commands spelled as the README spells them. In a fresh clone of this checkout's HEAD
# (committed changes only):
#   npm ci (which must print no install-script warning) && npm run build && npm prune --omit=dev
# then, in the clone, on the embedded database and on a new database on a Postgres server:
#   npm start (first start on the embedded database: the copy the build prepared),
#   npx svapi --version, --help, migrate, load <dir>, keys create/list, and serve: /healthz and
#   GetMonster; on the server, npx knex migrate:make, then npx svapi migrate, npx knex
#   migrate:rollback and migrate:latest on that new migration.
# Usage: scripts/check-pruned-install.sh [SERVER_URL]  (default postgres://postgres@127.0.0.1:5432/postgres;
# a database is created there and dropped at the end). Exits non-zero at the first failure.
set -euo pipefail
server_url=${1:-postgres://postgres@127.0.0.1:5432/postgres}
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
tmp=$(mktemp -d)
db="svapi_pruned_$(date +%s)_$$"
serve_pid=
cleanup() {
  [ -n "$serve_pid" ] && kill -TERM -- "-$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  psql "$server_url" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "check-pruned-install: $*" >&2; exit 1; }
# stop_serve: SIGTERM to the whole process group of `npm start` (npm, its shell, svapi): npm does
# not always pass the signal on, which left svapi running after this script. Fails if any of them
# is still running 20 s later.
stop_serve() {
  local pid=$serve_pid
  serve_pid=
  kill -TERM -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 -- "-$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  kill -KILL -- "-$pid" 2>/dev/null
  fail "svapi serve was still running 20 s after SIGTERM"
}

echo "--- clone, npm ci, npm run build, npm prune --omit=dev"
git clone --quiet "$repo" "$tmp/svapi"
cd "$tmp/svapi"
npm ci --no-audit --no-fund >"$tmp/ci.out" 2>&1 || { cat "$tmp/ci.out" >&2; fail "npm ci failed"; }
if grep -i 'install.scripts\|allowScripts' "$tmp/ci.out" >&2; then fail "npm ci warned about install scripts (package.json allowScripts)"; fi
npm run --silent build
npm prune --omit=dev --no-audit --no-fund --loglevel=error
for dev in tsx typescript jest; do [ ! -e "node_modules/$dev" ] || fail "node_modules/$dev is still installed after the prune"; done
[ -f dist/embedded-template/key ] || fail "the build prepared no embedded database (dist/embedded-template)"
svapi() { npx svapi "$@"; }
knex() { npx knex "$@"; }

version=$(svapi --version) || fail "npx svapi --version failed"
[ "$version" = "$(node -p 'require("./package.json").version')" ] || fail "npx svapi --version printed '$version'"
svapi --help | grep -q '^Usage: svapi' || fail "npx svapi --help printed no usage"
echo "npx svapi --version: $version"


# serve_check [KEY_ID KEY]: `npm start` answers /healthz, and GetMonster with that credential (by
# default the demo credential it prints on a first start), then stops.
serve_check() {
  local out="$tmp/serve.out" url= id=${1:-} key=${2:-}
  # Made here: the background job opens it only when it starts, and sed on a missing file fails the script (set -e).
  : >"$out"
  setsid npm start -- --workers 1 >"$out" 2>&1 & # a process group of its own: stop_serve
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
  stop_serve
  echo "serve: /healthz 200, GetMonster 200 (DevID $id)"
}

# admin_checks: migrate, load the sample data, create a credential and list it; then serve with it.
admin_checks() {
  svapi migrate
  svapi load seeds/data
  local created id key
  created=$(svapi keys create --name pruned-check --json)
  id=$(node -p "JSON.parse(process.argv[1]).DevID" "$created")
  key=$(node -p "JSON.parse(process.argv[1]).DevKey" "$created")
  [[ $(svapi keys list) == *pruned-check* ]] || fail "keys list does not show the new credential"
  serve_check "$id" "$key"
}

echo "--- embedded database: first start (the prepared copy), then the commands"
export DATABASE_URL= SVAPI_DATA_DIR="$tmp/data" LOG_LEVEL=warn PORT=0 HOST=127.0.0.1
serve_check
grep -q 'from the prepared copy' "$tmp/serve.out" || { cat "$tmp/serve.out" >&2; fail "the first start did not use the database the build prepared"; }
[ "$(stat -c %a "$tmp/data")" = 700 ] || fail "the data folder is not its owner's only"
admin_checks

echo "--- Postgres server: new database $db"
psql "$server_url" -qc "CREATE DATABASE $db" >/dev/null
export DATABASE_URL
DATABASE_URL=$(node -e 'const u = new URL(process.argv[1]); u.pathname = "/" + process.argv[2]; console.log(u.toString())' "$server_url" "$db")
admin_checks

echo "--- npx knex migrate:make: applied by npx svapi migrate, rolled back and applied by knex"
knex migrate:make add_index >/dev/null
made=$(ls migrations/*_add_index.js) || fail "knex migrate:make wrote no migrations/*_add_index.js"
name=$(basename "$made" .js)
# What a DBA writes into knex's template: a change, and its undoing.
cat >"$made" <<'JS'
exports.up = (knex) => knex.schema.createTable('pruned_check', (t) => t.increments('id'));
exports.down = (knex) => knex.schema.dropTable('pruned_check');
JS
applied=$(svapi migrate)
[ "$applied" = "applied: $name" ] || fail "npx svapi migrate did not apply $name: $applied"
knex migrate:rollback | grep -q 'Batch 2 rolled back: 1 migrations' || fail "npx knex migrate:rollback did not undo $name"
knex migrate:latest | grep -q 'Batch 2 run: 1 migrations' || fail "npx knex migrate:latest did not apply $name"
knex migrate:list | grep -qx "$name" || fail "npx knex migrate:list does not list $name"
echo "migrate:make $name: applied, rolled back, applied"

echo "pruned install: ok"
