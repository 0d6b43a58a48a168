#!/bin/sh
# The entry point of the Debian-built PostgreSQL image: what the official image's does for
# docker-compose.yml. As root: own the data folder, then run again as postgres. On an
# empty data folder: initdb with POSTGRES_USER (default postgres) and POSTGRES_PASSWORD
# (required), host connections by password (scram-sha-256) from anywhere, the server
# listening on every address; POSTGRES_DB (default: the user's name) created; the
# scripts of /docker-entrypoint-initdb.d run against a server on the Unix socket only.
# Then exec the command (postgres, with its arguments; "-c x=y" alone means postgres).
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
export PGDATA
case "${1:-}" in -*) set -- postgres "$@" ;; esac

if [ "${1:-}" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  find "$PGDATA" /var/run/postgresql \! -user postgres -exec chown postgres:postgres {} +
  chmod 0700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

initialise() {
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "error: the database is not initialised and POSTGRES_PASSWORD is not set" >&2
    echo "       (set POSTGRES_PASSWORD, as for the official postgres image)" >&2
    exit 1
  fi
  user=${POSTGRES_USER:-postgres}
  database=${POSTGRES_DB:-$user}
  secret=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$secret"
  # shellcheck disable=SC2086  # POSTGRES_INITDB_ARGS holds several arguments
  initdb --username="$user" --pwfile="$secret" --encoding=UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 ${POSTGRES_INITDB_ARGS:-} >/dev/null
  rm -f "$secret"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  pg_ctl --silent --wait --pgdata="$PGDATA" \
    -o "-c listen_addresses='' -p ${PGPORT:-5432}" start >/dev/null
  if [ "$database" != postgres ]; then
    psql --quiet --no-psqlrc -v ON_ERROR_STOP=1 --username="$user" --dbname=postgres \
      -v database="$database" <<'SQL'
CREATE DATABASE :"database";
SQL
  fi
  for script in /docker-entrypoint-initdb.d/*; do
    case "$script" in
      *.sql) psql --no-psqlrc -v ON_ERROR_STOP=1 --username="$user" --dbname="$database" -f "$script" ;;
      *.sh) . "$script" ;;
      *) ;;
    esac
  done
  pg_ctl --silent --wait --pgdata="$PGDATA" -m fast stop >/dev/null
  echo "PostgreSQL initialised: user $user, database $database"
}

if [ "${1:-}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  initialise
fi
exec "$@"
