#!/bin/sh
# Builds local stand-ins for the base images the Dockerfile and docker-compose.yml name
# (node:20-bookworm-slim, postgres:16, redis:7, haproxy:2.6), for an engine that cannot reach
# Docker Hub: a Debian bookworm root file system made by debootstrap from this host's apt mirror,
# then one small image per name, built the way the official image is where the project relies on
# it (users and uids, entrypoints, paths, the postgres image's initdb and temporary server).
# Where they differ (README: Containers): Postgres is bookworm's 15 under the name postgres:16,
# Node is this host's Node 20 binary with npm 10 from the npm registry.
#
#   sudo scripts/container-standins.sh          # then: DOCKER_BUILDKIT=0 docker build -t svapi:local .
#
# Settings: DOCKER (the client, default docker), STANDIN_DIR (work folder, default
# /var/tmp/svapi-standins), DEBIAN_MIRROR (default: the first bookworm source in /etc/apt),
# STANDIN_NPM (default 10.8.2, the npm of Node 20's official images), STANDIN_EXTRA_CA (default
# $NODE_EXTRA_CA_CERTS: certificates the node stand-in trusts besides Node's own, for a host whose
# way to the npm registry re-signs TLS; the official image has none). Needs root (debootstrap).
# Nothing it makes belongs in the repository: the work folder is outside it.
set -eu

DOCKER=${DOCKER:-docker}
WORK=${STANDIN_DIR:-/var/tmp/svapi-standins}
NPM_VERSION=${STANDIN_NPM:-10.8.2}
EXTRA_CA=${STANDIN_EXTRA_CA:-${NODE_EXTRA_CA_CERTS:-}}
BASE=svapi-standin/debian:bookworm-slim
export DOCKER_BUILDKIT=0

mirror() {
  # The first source for the suite bookworm, in either format apt reads (one-line or deb822).
  # shellcheck disable=SC2046
  awk '
    FILENAME ~ /\.sources$/ {
      if ($1 == "URIs:") uri = $2
      if ($1 == "Suites:") for (i = 2; i <= NF; i++) if ($i == "bookworm" && !found) { print uri; found = 1 }
      if (NF == 0) uri = ""
      next
    }
    $1 == "deb" {
      n = 2
      if ($2 ~ /^\[/) { while ($n !~ /\]$/) n++; n++ }
      if ($(n + 1) == "bookworm" && !found) { print $n; found = 1 }
    }
  ' $(ls /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null)
}

MIRROR=${DEBIAN_MIRROR:-$(mirror)}
[ -n "$MIRROR" ] || { echo "no bookworm source in /etc/apt; set DEBIAN_MIRROR" >&2; exit 1; }
mkdir -p "$WORK"

# The base: bookworm minbase, with apt's lists dropped and services kept from starting in builds
# (policy-rc.d, as Debian's own container images have).
if ! "$DOCKER" image inspect "$BASE" >/dev/null 2>&1; then
  rm -rf "$WORK/rootfs"
  debootstrap --variant=minbase bookworm "$WORK/rootfs" "$MIRROR"
  printf '#!/bin/sh\nexit 101\n' > "$WORK/rootfs/usr/sbin/policy-rc.d"
  chmod 755 "$WORK/rootfs/usr/sbin/policy-rc.d"
  chroot "$WORK/rootfs" apt-get clean
  rm -rf "$WORK/rootfs/var/lib/apt/lists/"* "$WORK/rootfs/var/cache/apt/"*.bin
  tar -C "$WORK/rootfs" --numeric-owner -c . | "$DOCKER" import --change 'CMD ["bash"]' - "$BASE"
  rm -rf "$WORK/rootfs"
fi

# Builds $1 from the Dockerfile on stdin, with the files the context folder $2 holds.
build() {
  cat > "$2/Dockerfile"
  # The host's network for apt (the default bridge may not reach the mirror).
  "$DOCKER" build --network host -t "$1" "$2"
}

# node:20-bookworm-slim: /usr/local/bin/node, npm and npx, the node user (uid and gid 1000).
ctx=$WORK/node && rm -rf "$ctx" && mkdir -p "$ctx"
node_bin=$(command -v node)
"$node_bin" -e 'process.exit(process.versions.node.split(".")[0] === "20" ? 0 : 1)' \
  || { echo "$node_bin is not Node 20" >&2; exit 1; }
cp "$node_bin" "$ctx/node"
extra_ca=''
if [ -n "$EXTRA_CA" ]; then
  cp "$EXTRA_CA" "$ctx/extra-ca.crt"
  extra_ca='COPY extra-ca.crt /usr/local/share/extra-ca.crt
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/extra-ca.crt'
fi
(cd "$ctx" && npm pack --silent "npm@$NPM_VERSION" >/dev/null && mkdir npm && tar -xzf npm-*.tgz -C npm --strip-components=1 && rm npm-*.tgz)
cat > "$ctx/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
set -e
# As the official image: a first argument that is a flag or no command runs node.
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
EOF
chmod 755 "$ctx/docker-entrypoint.sh"
build node:20-bookworm-slim "$ctx" <<EOF
FROM $BASE
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
  && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
  && node --version && npm --version
ENV NODE_VERSION=$("$node_bin" -p 'process.versions.node')
$extra_ca
COPY docker-entrypoint.sh /usr/local/bin/
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["node"]
EOF

# postgres:16: the postgres user (uid 999), PGDATA, en_US.UTF-8, and the official entrypoint's
# first start: initdb with POSTGRES_USER/POSTGRES_PASSWORD, a temporary server on the Unix socket
# only, POSTGRES_DB created, /docker-entrypoint-initdb.d run, then the server on every address.
ctx=$WORK/postgres && rm -rf "$ctx" && mkdir -p "$ctx"
cat > "$ctx/docker-entrypoint.sh" <<'EOF'
#!/usr/bin/env bash
set -Eeo pipefail
if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi
if [ "$1" = 'postgres' ] && [ "$(id -u)" = '0' ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chmod 00700 "$PGDATA"
  chmod 03775 /var/run/postgresql
  find "$PGDATA" /var/run/postgresql \! -user postgres -exec chown postgres '{}' +
  exec gosu postgres "$BASH_SOURCE" "$@"
fi
if [ "$1" = 'postgres' ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "${POSTGRES_HOST_AUTH_METHOD:-}" != trust ]; then
    echo 'Error: Database is uninitialized and superuser password is not specified (POSTGRES_PASSWORD).' >&2
    exit 1
  fi
  # shellcheck disable=SC2086
  initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "${POSTGRES_PASSWORD:-}") -D "$PGDATA" ${POSTGRES_INITDB_ARGS:-}
  printf '\nhost all all all %s\n' "${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}" >> "$PGDATA/pg_hba.conf"
  export PGPASSWORD="${POSTGRES_PASSWORD:-}"
  # The temporary server listens on the Unix socket only, as the official image's.
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start
  psql=(psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc)
  if [ "$POSTGRES_DB" != postgres ]; then
    "${psql[@]}" --dbname postgres --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db" ;'
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "$0: running $f"; if [ -x "$f" ]; then "$f"; else . "$f"; fi ;;
      *.sql) echo "$0: running $f"; "${psql[@]}" --dbname "$POSTGRES_DB" -f "$f" ;;
      *) [ -e "$f" ] && echo "$0: ignoring $f" ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop
  unset PGPASSWORD
  echo 'PostgreSQL init process complete; ready for start up.'
fi
exec "$@"
EOF
chmod 755 "$ctx/docker-entrypoint.sh"
build postgres:16 "$ctx" <<EOF
FROM $BASE
RUN groupadd -r postgres --gid=999 && useradd -r -g postgres --uid=999 --home-dir=/var/lib/postgresql --shell=/bin/bash postgres \
  && mkdir -p /var/lib/postgresql && chown -R postgres:postgres /var/lib/postgresql
RUN mkdir -p /etc/postgresql-common/createcluster.d \
  && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/docker.conf \
  && apt-get update && apt-get install -y --no-install-recommends locales gosu postgresql-15 \
  && localedef -i en_US -c -f UTF-8 -A /usr/share/locale/locale.alias en_US.UTF-8 \
  && sed -ri "s!^#?(listen_addresses)\s*=\s*\S+.*!\1 = '*'!" /usr/share/postgresql/15/postgresql.conf.sample \
  && rm -rf /var/lib/apt/lists/* /var/lib/postgresql/15 /etc/postgresql \
  && mkdir /docker-entrypoint-initdb.d
ENV LANG=en_US.utf8 PG_MAJOR=15 PATH=\$PATH:/usr/lib/postgresql/15/bin PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
COPY docker-entrypoint.sh /usr/local/bin/
ENTRYPOINT ["docker-entrypoint.sh"]
STOPSIGNAL SIGINT
EXPOSE 5432
CMD ["postgres"]
EOF

# redis:7: the redis user (uid 999), /data, and protected mode off (the official build's default).
ctx=$WORK/redis && rm -rf "$ctx" && mkdir -p "$ctx"
cat > "$ctx/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
set -e
if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then set -- redis-server "$@"; fi
if [ "$1" = 'redis-server' ] && [ "$(id -u)" = '0' ]; then
  find . \! -user redis -exec chown redis '{}' +
  exec gosu redis "$0" "$@"
fi
# Debian's redis-server keeps protected mode on by default; the official image builds it off.
if [ "$1" = 'redis-server' ]; then shift; set -- redis-server --protected-mode no "$@"; fi
exec "$@"
EOF
chmod 755 "$ctx/docker-entrypoint.sh"
build redis:7 "$ctx" <<EOF
FROM $BASE
RUN groupadd -r -g 999 redis && useradd -r -g redis -u 999 redis
RUN apt-get update && apt-get install -y --no-install-recommends gosu redis-server \
  && rm -rf /var/lib/apt/lists/* && mkdir /data && chown redis:redis /data
VOLUME /data
WORKDIR /data
COPY docker-entrypoint.sh /usr/local/bin/
ENTRYPOINT ["docker-entrypoint.sh"]
EXPOSE 6379
CMD ["redis-server"]
EOF

# haproxy:2.6: runs as the haproxy user (uid 99), configuration in /usr/local/etc/haproxy, -W -db.
ctx=$WORK/haproxy && rm -rf "$ctx" && mkdir -p "$ctx"
cat > "$ctx/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
set -e
if [ "${1#-}" != "$1" ]; then set -- haproxy "$@"; fi
if [ "$1" = 'haproxy' ]; then shift; set -- haproxy -W -db "$@"; fi
exec "$@"
EOF
chmod 755 "$ctx/docker-entrypoint.sh"
build haproxy:2.6 "$ctx" <<EOF
FROM $BASE
# The package makes its own haproxy user; the official image's has uid and gid 99.
RUN apt-get update && apt-get install -y --no-install-recommends haproxy \
  && rm -rf /var/lib/apt/lists/* && mkdir -p /usr/local/etc/haproxy && ln -s /usr/sbin/haproxy /usr/local/sbin/haproxy \
  && groupmod --gid 99 haproxy && usermod --uid 99 --gid 99 haproxy && chown -R haproxy:haproxy /var/lib/haproxy
STOPSIGNAL SIGUSR1
COPY docker-entrypoint.sh /usr/local/bin/
ENTRYPOINT ["docker-entrypoint.sh"]
USER haproxy
WORKDIR /var/lib/haproxy
CMD ["haproxy", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
EOF

"$DOCKER" image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E '^(node:20-bookworm-slim|postgres:16|redis:7|haproxy:2.6|svapi-standin/)'
