#!/usr/bin/env bash
# Start a throw-away PostgreSQL server for clinanon's ledger tests and print its URL.
#
#   scripts/postgres.sh [start]   install the Debian 'postgresql' package if missing (root only; runs
#                                 'apt-get update' first), create a cluster in $CLINANON_PG_DIR (default:
#                                 /var/tmp/clinanon-pg-UID) if there is none, start it on a free
#                                 localhost port (and a unix socket in that folder) unless it already runs, and
#                                 print 'postgresql://clinanon@127.0.0.1:PORT/clinanon' as the last line.
#   scripts/postgres.sh stop      stop that server.
#   scripts/postgres.sh url       print the URL of the running server (exit 1 if none).
#
# The server trusts local connections only (listen 127.0.0.1; pg_hba: trust for 127.0.0.1 and the socket):
# it is for tests, never for a ledger that holds real PHI. Messages go to stderr; only the URL goes to stdout.
set -euo pipefail

CMD="${1:-start}"
DIR="${CLINANON_PG_DIR:-/var/tmp/clinanon-pg-$(id -u)}"
DATA="$DIR/data"
LOG="$DIR/server.log"
DBUSER="clinanon"
DBNAME="clinanon"

say() { echo "postgres.sh: $*" >&2; }

find_bin() {
    local b
    for b in /usr/lib/postgresql/*/bin; do
        [ -x "$b/initdb" ] && { echo "$b"; return 0; }
    done
    if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
    return 1
}

# run a command as the server's OS user: 'postgres' when we are root (the server refuses to run as root)
as_owner() {
    if [ "$(id -u)" = "0" ]; then
        if command -v runuser >/dev/null 2>&1; then runuser -u postgres -- "$@"; else su postgres -s /bin/sh -c "$(printf '%q ' "$@")"; fi
    else
        "$@"
    fi
}

free_port() {
    python3 - <<'PY'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
}

url_of() { echo "postgresql://$DBUSER@127.0.0.1:$(cat "$DIR/port")/$DBNAME"; }

running() { [ -f "$DIR/port" ] && as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

if ! BIN="$(find_bin)"; then
    if [ "$CMD" != "start" ]; then say "PostgreSQL is not installed"; exit 1; fi
    if [ "$(id -u)" != "0" ]; then say "PostgreSQL is not installed and installing it needs root (apt-get install postgresql)"; exit 2; fi
    say "installing the Debian package 'postgresql' (apt-get update first)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends postgresql >&2
    BIN="$(find_bin)" || { say "postgresql installed but initdb not found"; exit 2; }
fi

case "$CMD" in
  stop)
    if running; then as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >&2; fi
    exit 0 ;;
  url)
    if running; then url_of; exit 0; fi
    exit 1 ;;
  start) ;;
  *) say "unknown command '$CMD' (start | stop | url)"; exit 2 ;;
esac

mkdir -p "$DIR"
if [ "$(id -u)" = "0" ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir "$DIR" --shell /usr/sbin/nologin postgres
    # the server user owns the folder (keep it somewhere 'postgres' can reach, e.g. under /var/tmp)
    chown postgres "$DIR"
    chmod 700 "$DIR"
fi

if running; then url_of; exit 0; fi

if [ ! -s "$DATA/PG_VERSION" ]; then
    rm -rf "$DATA"
    as_owner mkdir -p "$DATA"
    as_owner "$BIN/initdb" -D "$DATA" -U "$DBUSER" --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null 2>&1 \
        || as_owner "$BIN/initdb" -D "$DATA" -U "$DBUSER" --auth=trust --encoding=UTF8 >&2
fi

PORT="$(free_port)"
echo "$PORT" > "$DIR/port"
as_owner "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=off -c full_page_writes=off" start >&2 \
    || { say "the server did not start; see $LOG"; exit 2; }

# the database (idempotent)
if ! as_owner "$BIN/psql" -h "$DIR" -p "$PORT" -U "$DBUSER" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$DBNAME'" 2>/dev/null | grep -q 1; then
    as_owner "$BIN/createdb" -h "$DIR" -p "$PORT" -U "$DBUSER" "$DBNAME" >&2
fi
url_of
