#!/bin/sh
# Runs once, when the postgres service initialises an empty data volume (docker-entrypoint-initdb.d).
# Two roles and their database (README, "The two database roles"):
#   club_owner  owns the database `club` and its tables; only the `migrate` service connects as it;
#   club_app    what web, worker and beat connect as; no superuser, owns nothing; after each migrate
#               the owner grants it its rights (ledger/roles.py): no TRUNCATE, no trigger or table
#               changes, no UPDATE/DELETE on journal entries, postings and rulings.
# Passwords come from the environment (CLUB_OWNER_PASSWORD, CLUB_APP_PASSWORD).
set -eu
: "${CLUB_OWNER_PASSWORD:?set CLUB_OWNER_PASSWORD}"
: "${CLUB_APP_PASSWORD:?set CLUB_APP_PASSWORD}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
     -v owner_password="$CLUB_OWNER_PASSWORD" -v app_password="$CLUB_APP_PASSWORD" <<'SQL'
CREATE ROLE club_owner LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
    PASSWORD :'owner_password';
CREATE ROLE club_app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
    PASSWORD :'app_password';
CREATE DATABASE club OWNER club_owner;
REVOKE ALL ON DATABASE club FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE club TO club_app;
SQL
