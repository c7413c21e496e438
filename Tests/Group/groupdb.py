"""The group database on the test cluster (Tests/Group/postgres.sh): how to reach it, and databases with
Supabase's parts (Tests/Group/prelude.sql) and SnapStation's schema (docs/supabase/schema.sql) loaded.

Shared by Tests/Group/check_rules.py, Tests/Group/check_fake.py and the Supabase stand-in in
Tests/Fakes/fake_services.py.
"""
import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRELUDE = ROOT / "Tests/Group/prelude.sql"
SCHEMA = ROOT / "docs/supabase/schema.sql"
DEFAULT_SOCKET_DIR = "/tmp/snapstation-pg"

try:
    import psycopg
    from psycopg import sql
except ImportError:  # pragma: no cover - a clear message instead of a traceback
    sys.exit("psycopg is missing: run Tests/Group/postgres.sh start, which installs it "
             "(or pip install -r Tests/Group/requirements.txt)")


@dataclass(frozen=True)
class Cluster:
    """Where the cluster listens: a unix socket folder, the port that names the socket, the superuser."""
    socket_dir: str = DEFAULT_SOCKET_DIR
    port: int = 5432
    superuser: str = "postgres"

    @classmethod
    def from_environment(cls):
        """The cluster that `postgres.sh env` describes (or postgres.sh's own SNAPSTATION_PG_DIR, or its
        default folder)."""
        socket_dir = os.environ.get("SNAPSTATION_PG_SOCKET") or os.environ.get("SNAPSTATION_PG_DIR")
        return cls(socket_dir or DEFAULT_SOCKET_DIR,
                   int(os.environ.get("SNAPSTATION_PG_PORT", "5432")),
                   os.environ.get("SNAPSTATION_PG_USER", "postgres"))

    def connect(self, dbname="postgres", user=None, autocommit=True):
        return psycopg.connect(host=self.socket_dir, port=self.port, user=user or self.superuser,
                               dbname=dbname, autocommit=autocommit, connect_timeout=5)

    def check_reachable(self):
        """Exits with the way to start the cluster when it is not there."""
        try:
            self.connect().close()
        except psycopg.OperationalError as error:
            sys.exit(f"no PostgreSQL at {self.socket_dir} (port {self.port}): start it with "
                     f"Tests/Group/postgres.sh start\n{error}")

    def create_database(self, name, template=None):
        with self.connect() as admin:
            admin.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))
            create = sql.SQL("create database {}").format(sql.Identifier(name))
            if template:
                create += sql.SQL(" template {}").format(sql.Identifier(template))
            admin.execute(create)

    def drop_database(self, name):
        with self.connect() as admin:
            admin.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))

    def template(self):
        """A template database with the prelude and the schema (less its pg_cron job) loaded, built once
        per version of those two files; copying it is much quicker than loading them again."""
        prelude, schema = PRELUDE.read_text(), schema_without_schedule()
        name = "snapstation_tpl_" + hashlib.sha256((prelude + schema).encode()).hexdigest()[:12]
        with self.connect() as admin:
            # Fakes start in parallel: one builds, the others wait here and then find it built.
            admin.execute("select pg_advisory_lock(hashtext('snapstation template'))")
            try:
                built = admin.execute("select 1 from pg_database where datname = %s", [name]).fetchone()
                if not built:
                    self._build_template(admin, name, prelude, schema)
            finally:
                admin.execute("select pg_advisory_unlock(hashtext('snapstation template'))")
        return name

    def _build_template(self, admin, name, prelude, schema):
        admin.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
        try:
            with self.connect(name) as connection:
                connection.execute(prelude)
                connection.execute(schema)
        except BaseException:
            admin.execute(sql.SQL("drop database {} with (force)").format(sql.Identifier(name)))
            raise


PG_CRON_PART = ("create extension if not exists pg_cron with schema pg_catalog;",
                "grant usage on schema cron to postgres;",
                "grant all privileges on all tables in schema cron to postgres;",
                "select cron.schedule(")


def schema_without_schedule():
    """The schema less its pg_cron part: the extension as Supabase's docs install it, the grants on `cron`,
    and the job. pg_cron lives in one database of a cluster (cron.database_name: here, as on Supabase,
    "postgres"), so copies of a template cannot have it; check_rules.py loads the whole file, with the
    real pg_cron (Tests/Group/postgres.sh preloads it; no stand-in of it anywhere), into "postgres" and
    checks the job there."""
    text = SCHEMA.read_text()
    start = text.index(PG_CRON_PART[0])
    end = text.index(");", text.index(PG_CRON_PART[-1], start)) + 2
    removed = text[start:end]
    assert removed.count(";") == len(PG_CRON_PART) and all(part in removed for part in PG_CRON_PART), \
        f"the pg_cron part of schema.sql should be these {len(PG_CRON_PART)} statements: {PG_CRON_PART}"
    rest = text[:start] + text[end:]
    assert "cron." not in rest.replace("pg_cron", ""), "schema.sql uses pg_cron outside its pg_cron part"
    return rest
