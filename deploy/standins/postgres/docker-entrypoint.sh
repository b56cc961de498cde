#!/bin/sh
# What the public postgres image's entrypoint does for this stack: on an empty data folder, initdb with
# POSTGRES_USER / POSTGRES_PASSWORD, password (scram) logins from any address, every script of
# /docker-entrypoint-initdb.d run against a server that listens on no port; then the server on all
# addresses of the container.
set -eu
if [ "${1:-}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
    : "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
    export POSTGRES_USER="${POSTGRES_USER:-postgres}"
    pwfile="$(mktemp)"
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
        --encoding=UTF8 -D "$PGDATA" >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    for script in /docker-entrypoint-initdb.d/*; do
        case "$script" in
            *.sh) echo "running $script"; if [ -x "$script" ]; then "$script"; else . "$script"; fi ;;
            *.sql) echo "running $script"; psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" -f "$script" ;;
        esac
    done
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
    echo "PostgreSQL init process complete; ready for start up."
fi
exec "$@"
