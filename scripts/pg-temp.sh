# Throwaway PostgreSQL 15 cluster for scripts and tests. Source this file, then:
#
#   pg_temp_start DIR   initialise and start a private cluster under DIR, create the database
#                       `transcode` and export DATABASE_URL, PG_TEMP_DIR, PG_TEMP_PORT, PG_TEMP_DATA
#   pg_temp_stop        stop it and remove its data directory (safe to call twice or after a
#                       failed start, e.g. from an EXIT trap)
#
# The cluster listens on 127.0.0.1 only, on a free port the kernel picks, with its unix sockets in
# DIR (never /var/run/postgresql) and its log in DIR/pg.log. Authentication is `trust`: it is a
# local, disposable cluster with fsync off, never a place for real data. System clusters
# (pg_lsclusters) are not touched. As root the server runs as the `postgres` OS user (PostgreSQL
# refuses to run as root); otherwise as the current user.
#
# Needs the Debian package postgresql-15 (scripts/install-deps.sh installs it).
#
# Example:
#   source scripts/pg-temp.sh
#   pg_temp_start /tmp/pgt && psql "$DATABASE_URL" -c 'select 1'; pg_temp_stop

PG_TEMP_BIN=${PG_TEMP_BIN:-/usr/lib/postgresql/15/bin}

# Runs a command as the cluster owner, from / so that an unreadable current directory (e.g. /root)
# does not bother the server tools.
_pg_temp_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && "$@")
  fi
}

# Prints a free TCP port on 127.0.0.1 (the kernel's choice); the caller retries on a collision.
_pg_temp_free_port() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' 2>/dev/null && return 0
  fi
  echo $((20000 + RANDOM % 30000))
}

# As root, makes sure the postgres user can reach DIR: directories below the temporary directory
# that block it (mktemp -d creates them 0700) get search permission for others (x only, no
# listing); anything else is reported, not changed.
_pg_temp_grant_path() {
  local dir=$1 tmp d
  tmp=$(cd "${TMPDIR:-/tmp}" 2>/dev/null && pwd -P) || tmp=/tmp
  d=$(cd "$dir" && pwd -P) || return 1
  while [ "$d" != "/" ] && [ -n "$d" ]; do
    if ! runuser -u postgres -- test -x "$d" 2>/dev/null; then
      case "$d/" in
        "$tmp"/?*)
          chmod o+x "$d" || return 1 ;;
        *)
          echo "pg-temp: the postgres user cannot enter $d; choose a directory under $tmp" >&2
          return 1 ;;
      esac
    fi
    d=$(dirname "$d")
  done
}

pg_temp_start() {
  local dir=${1:?usage: pg_temp_start DIR}
  if [ -n "${PG_TEMP_DATA:-}" ] && [ -d "${PG_TEMP_DATA}" ]; then
    echo "pg-temp: a cluster is already running in $PG_TEMP_DATA; call pg_temp_stop first" >&2
    return 1
  fi
  local b
  for b in initdb pg_ctl pg_isready psql; do
    [ -x "$PG_TEMP_BIN/$b" ] || { echo "pg-temp: $PG_TEMP_BIN/$b not found (apt-get install postgresql-15)" >&2; return 1; }
  done
  if [ "$(id -u)" -eq 0 ] && ! id -u postgres >/dev/null 2>&1; then
    echo "pg-temp: running as root but there is no postgres OS user (apt-get install postgresql-15)" >&2
    return 1
  fi

  mkdir -p "$dir" || return 1
  dir=$(cd "$dir" && pwd -P) || return 1
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$dir" || return 1
    _pg_temp_grant_path "$dir" || return 1
  fi

  # Unix socket paths are limited to 107 bytes ("$dir/.s.PGSQL.NNNNN").
  local sockdir=$dir
  if [ $((${#dir} + 18)) -gt 107 ]; then
    echo "pg-temp: $dir is too long for a unix socket path; the sockets go to a short temporary directory" >&2
    sockdir=$(mktemp -d /tmp/pgsock.XXXXXX) || return 1
    [ "$(id -u)" -ne 0 ] || chown postgres: "$sockdir" || return 1
  fi

  local data log
  data=$(mktemp -d "$dir/data.XXXXXX") || return 1
  log=$dir/pg.log
  [ "$(id -u)" -ne 0 ] || chown postgres: "$data" || return 1
  : >"$log" && { [ "$(id -u)" -ne 0 ] || chown postgres: "$log"; } || return 1
  export PG_TEMP_DIR=$dir PG_TEMP_DATA=$data
  _PG_TEMP_SOCKDIR=$sockdir

  if ! _pg_temp_as_owner "$PG_TEMP_BIN/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C \
      --no-sync --no-instructions >"$dir/initdb.log" 2>&1; then
    cat "$dir/initdb.log" >&2
    echo "pg-temp: initdb failed" >&2
    pg_temp_stop
    return 1
  fi

  local quoted=${sockdir//\'/\'\'}
  cat >>"$data/postgresql.conf" <<EOF

# pg-temp: throwaway cluster settings
listen_addresses = '127.0.0.1'
unix_socket_directories = '$quoted'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
logging_collector = off
EOF
  cat >"$data/pg_hba.conf" <<EOF
# pg-temp: throwaway local cluster, trust on loopback only
local all all trust
host  all all 127.0.0.1/32 trust
EOF

  local attempt port started=0
  for attempt in 1 2 3 4 5; do
    port=$(_pg_temp_free_port)
    echo "== pg-temp: starting attempt $attempt on 127.0.0.1:$port" >>"$log"
    if _pg_temp_as_owner "$PG_TEMP_BIN/pg_ctl" -D "$data" -l "$log" -o "-p $port" -w -t 60 start >/dev/null 2>&1; then
      started=1
      break
    fi
    # Another process took the port between the choice and the bind: try another one.
    if tail -n 20 "$log" | grep -q -E 'could not bind|Address already in use|could not create any TCP/IP sockets|lock file .* already exists'; then
      _pg_temp_as_owner "$PG_TEMP_BIN/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
      continue
    fi
    break
  done
  if [ "$started" -ne 1 ]; then
    cat "$log" >&2
    echo "pg-temp: the server did not start" >&2
    pg_temp_stop
    return 1
  fi
  export PG_TEMP_PORT=$port

  local i
  for i in $(seq 1 120); do
    "$PG_TEMP_BIN/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -t 1 && break
    if [ "$i" -eq 120 ]; then
      cat "$log" >&2
      echo "pg-temp: the server does not accept connections on 127.0.0.1:$port" >&2
      pg_temp_stop
      return 1
    fi
    sleep 0.25
  done

  if ! "$PG_TEMP_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres \
      -c 'CREATE DATABASE transcode OWNER postgres' >/dev/null; then
    cat "$log" >&2
    echo "pg-temp: could not create the database transcode" >&2
    pg_temp_stop
    return 1
  fi
  _PG_TEMP_URL="postgresql://postgres@127.0.0.1:$port/transcode"
  export DATABASE_URL=$_PG_TEMP_URL
  echo "pg-temp: PostgreSQL $("$PG_TEMP_BIN/pg_ctl" --version | awk '{print $3}') on 127.0.0.1:$port, data in $data"
}

pg_temp_stop() {
  local data=${PG_TEMP_DATA:-}
  if [ -n "$data" ] && [ -d "$data" ]; then
    if [ -f "$data/postmaster.pid" ]; then
      _pg_temp_as_owner "$PG_TEMP_BIN/pg_ctl" -D "$data" -m fast -w -t 30 stop >/dev/null 2>&1 \
        || _pg_temp_as_owner "$PG_TEMP_BIN/pg_ctl" -D "$data" -m immediate -w -t 30 stop >/dev/null 2>&1 \
        || true
    fi
    rm -rf "$data"
  fi
  if [ -n "${_PG_TEMP_SOCKDIR:-}" ] && [ "${_PG_TEMP_SOCKDIR}" != "${PG_TEMP_DIR:-}" ]; then
    rm -rf "$_PG_TEMP_SOCKDIR"
  fi
  if [ -n "${_PG_TEMP_URL:-}" ] && [ "${DATABASE_URL:-}" = "$_PG_TEMP_URL" ]; then
    unset DATABASE_URL
  fi
  unset PG_TEMP_DATA PG_TEMP_PORT _PG_TEMP_SOCKDIR _PG_TEMP_URL
  return 0
}
