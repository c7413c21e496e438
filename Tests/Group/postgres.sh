#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for the group checks and the Supabase stand-in
# (Tests/Fakes/fake_services.py --postgres).
#
#   Tests/Group/postgres.sh start   install what is missing, create and start the cluster (or reuse the one
#                                   already running there), print how to reach it
#   Tests/Group/postgres.sh env     print the exports: eval "$(Tests/Group/postgres.sh env)"
#   Tests/Group/postgres.sh stop    stop the cluster and delete its folder
#
# SNAPSTATION_PG_DIR (default /tmp/snapstation-pg) holds the data and the socket; SNAPSTATION_PG_PORT
# (default 5432) only names the socket file. There is no TCP listener (listen_addresses=''), so the port
# cannot clash with a system PostgreSQL. Trust authentication: the folder is private to the cluster's
# owner (and root), and nothing in it is worth keeping.
set -euo pipefail

dir="${SNAPSTATION_PG_DIR:-/tmp/snapstation-pg}"
port="${SNAPSTATION_PG_PORT:-5432}"
superuser=postgres
bin=/usr/lib/postgresql/15/bin
here="$(cd "$(dirname "$0")" && pwd)"

# initdb and postgres refuse to run as root: as root we use the `postgres` system user the Debian package
# creates; anyone else runs the cluster as themselves.
as_owner() {
    if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

install_missing() {
    local missing=()
    [[ -x $bin/initdb ]] || missing+=(postgresql-15)
    [[ -f /usr/lib/postgresql/15/lib/pg_cron.so ]] || missing+=(postgresql-15-cron)
    if ((${#missing[@]})); then
        local sudo=""
        [[ $(id -u) -ne 0 ]] && sudo="sudo"
        # Without this the package would also create and start a system cluster on TCP 5432.
        if [[ ! -e /etc/postgresql-common/createcluster.conf ]]; then
            $sudo mkdir -p /etc/postgresql-common/createcluster.d
            echo "create_main_cluster = false" |
                $sudo tee /etc/postgresql-common/createcluster.d/snapstation.conf >/dev/null
        fi
        echo "postgres: installing ${missing[*]}"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
    install_driver
}

# The Python checks and the fake talk to the cluster with psycopg 3 (Tests/Group/requirements.txt).
install_driver() {
    python3 -c 'import psycopg' 2>/dev/null && return
    echo "postgres: installing psycopg for python3"
    if ! python3 -m pip install -q -r "$here/requirements.txt" 2>/dev/null; then
        # Debian's own python3 refuses pip installs (PEP 668); its package has the same driver.
        local sudo=""
        [[ $(id -u) -ne 0 ]] && sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-psycopg >/dev/null
    fi
    if ! python3 -c 'import psycopg'; then
        echo "postgres: psycopg could not be installed for $(command -v python3)" >&2
        exit 1
    fi
}

running() {
    [[ -f $dir/data/postmaster.pid ]] && as_owner "$bin/pg_ctl" status -D "$dir/data" >/dev/null 2>&1
}

create_cluster() {
    rm -rf "$dir"
    mkdir -p "$dir"
    chmod 700 "$dir"
    [[ $(id -u) -eq 0 ]] && chown postgres: "$dir"
    # --no-sync and fsync=off: a crash loses nothing we need, and every check starts from a fresh database.
    as_owner "$bin/initdb" -D "$dir/data" -U "$superuser" --auth=trust -E UTF8 --no-locale --no-sync >"$dir/initdb.log"
    cat >>"$dir/data/postgresql.conf" <<EOF

# Tests/Group/postgres.sh
listen_addresses = ''
unix_socket_directories = '$dir'
port = $port
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
timezone = 'UTC'
log_min_messages = warning
log_checkpoints = off
# The real pg_cron, as Supabase has it: jobs live in the "postgres" database and run in background
# workers (no TCP connection needed).
shared_preload_libraries = 'pg_cron'
cron.database_name = 'postgres'
cron.use_background_workers = on
max_worker_processes = 16
EOF
}

print_env() {
    echo "export PGHOST=$dir PGPORT=$port PGUSER=$superuser"
    echo "export SNAPSTATION_PG_SOCKET=$dir SNAPSTATION_PG_PORT=$port SNAPSTATION_PG_USER=$superuser"
}

start() {
    local began
    began=$(date +%s%N)
    install_missing
    if running; then
        echo "postgres: already running in $dir"
    else
        create_cluster
        as_owner "$bin/pg_ctl" start -w -s -D "$dir/data" -l "$dir/server.log"
        echo "postgres: started PostgreSQL $("$bin/postgres" --version | awk '{print $3}') in $dir (socket only)"
    fi
    print_env
    echo "postgres: ready in $(((($(date +%s%N) - began) / 1000000)))ms"
}

stop() {
    if running; then as_owner "$bin/pg_ctl" stop -w -s -m fast -D "$dir/data"; fi
    rm -rf "$dir"
    echo "postgres: stopped, $dir removed"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    env) print_env ;;
    *) echo "usage: $0 start|stop|env" >&2; exit 2 ;;
esac
