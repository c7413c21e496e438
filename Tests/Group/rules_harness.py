"""What Tests/Group/check_rules.py acts with: the admin (the SQL editor) and stations (API callers on
their own connections, each transaction switched to the caller's role and JWT claims as PostgREST does),
and helpers to expect a refusal and to run callers at the same moment."""
import json
import threading
import uuid
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

from groupdb import psycopg, sql

NOW = datetime.now(timezone.utc)
TODAY = NOW.date()
# Another day that is current somewhere on Earth, which the insert policy takes besides today (the UTC-12
# date to the UTC+14 date): yesterday is, until noon UTC, and tomorrow from 10:00 UTC; an hour's margin.
OTHER_DAY = TODAY - timedelta(days=1) if NOW.hour < 11 else TODAY + timedelta(days=1)


class Rules:
    """The database under test, and helpers to act as the admin or as a station."""

    def __init__(self, cluster, database):
        self.cluster, self.database = cluster, database
        self.admin = cluster.connect(database)

    def add_member(self, group, name, user=None):
        """Adds a station to a group as the admin does in the SQL editor; returns its user id."""
        user = user or self.new_user()
        self.admin.execute("insert into public.groups (name) values (%s) on conflict (name) do nothing", [group])
        self.admin.execute("insert into public.members (group_id, user_id, name) "
                           "select id, %s, %s from public.groups where name = %s", [user, name, group])
        return user

    def new_user(self):
        user = uuid.uuid4()
        self.admin.execute("insert into auth.users (id) values (%s)", [user])
        return user

    def add_group(self, group, count, prefix="Station"):
        return [self.add_member(group, f"{prefix} {index + 1}") for index in range(count)]

    def folder(self, group):
        """The group's folder in the bucket (groups.folder as text, as the station reads it), read as the admin."""
        row = self.admin.execute("select folder::text from public.groups where name = %s", [group]).fetchone()
        assert row, f"there is no group {group}"
        return row[0]

    def path(self, group, photo_id, day=TODAY):
        """FOLDER/DAY/PHOTO.jpg of the group's folder, as the station names its objects."""
        return photo_path(self.folder(group), photo_id, day)

    def station(self, user, role="authenticated"):
        return Station(self.cluster.connect(self.database, user="authenticator"), user, role, self)

    def place_object(self, user, name):
        """An object in the bucket as `user` uploaded it (owner and owner_id are its id, as the Storage API
        writes them), put there by the admin so that a check of rows does not hang on the bucket's rules."""
        self.admin.execute("insert into storage.objects (bucket_id, name, owner, owner_id) "
                           "values ('snapstation', %s, %s, %s) on conflict (bucket_id, name) do nothing",
                           [name, user, str(user)])
        return name


class Station:
    """One API caller: each transaction runs as `role` with the claims of `user`'s JWT, as PostgREST does."""

    def __init__(self, connection, user, role, rules=None):
        self.connection, self.user, self.rules = connection, user, rules
        self.claims = {"role": role, "aud": role}
        if user:
            self.claims["sub"] = str(user)

    @contextmanager
    def transaction(self):
        with self.connection.transaction():
            self.connection.execute(sql.SQL("set local role {}").format(sql.Identifier(self.claims["role"])))
            self.connection.execute("select set_config('request.jwt.claims', %s, true)", [json.dumps(self.claims)])
            yield self.connection

    def run(self, query, params=(), storage_api=False):
        """Runs one statement in its own transaction; returns its rows (or the row count). With
        `storage_api` the transaction is the Storage API's, which alone may delete storage.objects (it
        sets storage.allow_delete_query: supabase/storage src/internal/database/postgres/scope.ts)."""
        with self.transaction() as connection:
            if storage_api:
                connection.execute("select set_config('storage.allow_delete_query', 'true', true)")
            cursor = connection.execute(query, params)
            return cursor.fetchall() if cursor.description else cursor.rowcount

    def share(self, group, photo_id, day=TODAY, taken=None, upload=True, **columns):
        """Shares a photo as the station does: its object first (unless `upload` is false), then the row."""
        if "object_path" not in columns:
            columns["folder"] = self.rules.folder(group)
        row = photo_row(group, photo_id, day, taken, **columns)
        if upload and self.user:
            self.rules.place_object(self.user, row["object_path"])
        return self.run(*insert_row(row))

    def call(self, function, **arguments):
        """Calls public.FUNCTION with named arguments in a transaction of its own, as PostgREST's
        /rest/v1/rpc/FUNCTION does, and answers (status, value): the HTTP status the function set in
        `response.status` (PostgREST answers with it, and still commits), else 200; the value as JSON
        (a set-returning function's rows as a list). A raised error propagates (see `refused`)."""
        call = sql.SQL("{}({})").format(sql.Identifier("public", function), sql.SQL(", ").join(
            sql.SQL("{} := {}").format(sql.Identifier(name), sql.Placeholder()) for name in arguments))
        with self.transaction() as connection:
            returns_set = connection.execute("select proretset from pg_proc where oid = %s::regproc",
                                             [f"public.{function}"]).fetchone()[0]
            query = (sql.SQL("select coalesce(json_agg(_r), '[]') from {} _r") if returns_set
                     else sql.SQL("select to_json({})")).format(call)
            value = connection.execute(query, list(arguments.values())).fetchone()[0]
            status = connection.execute("select current_setting('response.status', true)").fetchone()[0]
        return int(status or 200), value

    def close(self):
        self.connection.close()


def photo_row(group, photo_id, day=TODAY, taken=None, folder=None, **columns):
    """A station's row, with sensible values for the columns not given; the object_path (unless given) is
    FOLDER/DAY/PHOTO.jpg, FOLDER the group's folder (Rules.folder), as the station names its objects. The
    station still sends taken_at and expires_at; the server sets its own (the stamp_share trigger)."""
    taken = taken or NOW - timedelta(minutes=5)
    if "object_path" not in columns:
        assert folder, "the group's folder is needed for the object's path"
        columns["object_path"] = photo_path(folder, photo_id, day)
    return {"group_name": group, "day": day, "photo_id": photo_id, "taken_at": taken,
            "expires_at": taken + timedelta(hours=48)} | columns


def insert_photo(group, photo_id, day=TODAY, taken=None, folder=None, **columns):
    """The INSERT a station's share is (without its upload: see Station.share and Rules.place_object)."""
    return insert_row(photo_row(group, photo_id, day, taken, folder, **columns))


def insert_row(row):
    query = sql.SQL("insert into public.group_photos ({}) values ({})").format(
        sql.SQL(", ").join(map(sql.Identifier, row)), sql.SQL(", ").join(sql.Placeholder() * len(row)))
    return query, list(row.values())


def photo_path(folder, photo_id, day=TODAY):
    return f"{folder}/{day}/{photo_id}.jpg"


def refused(action, sqlstate, constraint=None, message=None):
    """Runs `action`, expecting PostgreSQL to refuse it with `sqlstate`; returns the error."""
    try:
        action()
    except psycopg.Error as error:
        assert error.sqlstate == sqlstate, f"expected {sqlstate}, got {error.sqlstate}: {error}"
        if constraint:
            assert error.diag.constraint_name == constraint, f"expected {constraint}, got {error.diag.constraint_name}"
        if message:
            assert message in str(error), f"expected {message!r} in {error}"
        return error
    raise AssertionError(f"expected {sqlstate}, but it was allowed")


def run_together(actions):
    """Runs each action on its own thread, all released at once; returns their results or exceptions."""
    barrier = threading.Barrier(len(actions))
    results = [None] * len(actions)

    def runner(index, action):
        try:
            results[index] = action(barrier)
        except Exception as error:  # collected for the check to judge
            results[index] = error

    threads = [threading.Thread(target=runner, args=item) for item in enumerate(actions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def count(rules, query, params=()):
    """One number, read as the admin."""
    return rules.admin.execute(query, params).fetchone()[0]


def remove_object(station, name):
    """What the Storage API runs to delete an object, under the caller's role."""
    return station.run("delete from storage.objects where bucket_id = 'snapstation' and name = %s", [name],
                       storage_api=True)


def put_object(station, name, upsert=False):
    """What the Storage API runs for an upload, under the caller's role."""
    conflict = " on conflict (bucket_id, name) do update set updated_at = now()" if upsert else ""
    return station.run("insert into storage.objects (bucket_id, name, owner, owner_id) "
                       "values ('snapstation', %s, auth.uid(), auth.uid()::text)" + conflict, [name])


def age(rules, photo_id, hours):
    """As if the row of `photo_id` had come in `hours` earlier: its times moved back by the admin (the
    server stamps them only on insert)."""
    rules.admin.execute("update public.group_photos set taken_at = taken_at - make_interval(hours => %s), "
                        "expires_at = expires_at - make_interval(hours => %s), "
                        "created_at = created_at - make_interval(hours => %s) where photo_id = %s",
                        [hours, hours, hours, photo_id])
