#!/usr/bin/env python3
"""Checks the rules of docs/supabase/schema.sql on a real PostgreSQL 15 (Tests/Group/postgres.sh start).

    python3 Tests/Group/check_rules.py [--keep]

Loads Tests/Group/prelude.sql and the schema into a fresh database, then runs real SQL the way the APIs
do: as the `authenticator` login, each transaction switched to the caller's role with its JWT claims
(`set local role authenticated; select set_config('request.jwt.claims', ..., true)`). Concurrent checks use
one connection per station. Prints each check with its time and `group rules: N passed, M failed`; exits
non-zero on any failure. --keep leaves the database (snapstation_rules) for a look with psql.
"""
import sys
import time
import uuid
from datetime import timedelta

import groupdb
from groupdb import psycopg
from rules_harness import NOW, TODAY, Rules, count, insert_photo, put_object, refused, remove_object, run_together

DATABASE = "snapstation_rules"
checks = []


def check(title):
    """Registers a check; checks run in the order they are written."""
    def register(function):
        checks.append((title, function))
        return function
    return register


# ---------------------------------------------------------------------------------------------------------
# The checks

@check("schema: loads into a fresh database, and loads again over itself")
def schema_loads(rules):
    for _ in range(2):
        rules.admin.execute(groupdb.PRELUDE.read_text())
        rules.admin.execute(groupdb.schema_without_schedule())
    tables = count(rules, "select count(*) from pg_tables where schemaname = 'public' and rowsecurity")
    assert tables == 3, f"expected groups, members and group_photos with row-level security, got {tables}"


@check("schema: upgrades the first version (one photo per group per day, open bucket policies)")
def schema_upgrades(rules):
    database = DATABASE + "_upgrade"
    rules.cluster.create_database(database)
    try:
        with rules.cluster.connect(database) as connection:
            connection.execute(groupdb.PRELUDE.read_text())
            connection.execute(FIRST_VERSION)
            connection.execute(groupdb.schema_without_schedule())
            columns = connection.execute("select count(*) from information_schema.columns where "
                                         "table_name = 'group_photos' and column_name = 'member_id'").fetchone()[0]
            policies = {name for (name,) in connection.execute(
                "select policyname from pg_policies where schemaname = 'storage' and tablename = 'objects'")}
        assert columns == 1, "the old group_photos table is still there"
        assert all(name.startswith("snapstation: ") for name in policies), f"old policies left: {policies}"
    finally:
        rules.cluster.drop_database(database)


# What the first docs/supabase/schema.sql created (less its job): the table and its open bucket policies.
FIRST_VERSION = """
create table public.group_photos (
    id bigint generated always as identity primary key, group_name text not null, day date not null,
    photo_id text not null unique, object_path text not null, station text not null default '',
    taken_at timestamptz not null, expires_at timestamptz not null, created_at timestamptz not null default now(),
    constraint one_photo_per_day unique (group_name, day));
alter table public.group_photos enable row level security;
create policy "add photos" on public.group_photos for insert to authenticated with check (true);
create policy "stations upload photos" on storage.objects for insert to authenticated
    with check (bucket_id = 'snapstation');
create policy "stations rewrite photos" on storage.objects for update to authenticated
    using (bucket_id = 'snapstation');
create policy "read photos" on storage.objects for select to authenticated using (bucket_id = 'snapstation');
"""


@check("member cap: 12 members join, the 13th is refused")
def member_cap(rules):
    rules.add_group("Family", 12)
    refused(lambda: rules.add_member("Family", "Thirteenth"), "23514",
            message="group Family already has 12 members")
    assert count(rules, "select count(*) from public.members m join public.groups g on g.id = m.group_id "
                        "where g.name = 'Family'") == 12


@check("groups: a name must be a Storage folder name (no slash, ASCII), 1 to 100 characters")
def group_names(rules):
    add = "insert into public.groups (name) values (%s)"
    for name in ("A/B", "Café", "", "x" * 101):
        refused(lambda: rules.admin.execute(add, [name]), "23514")
    rules.admin.execute(add, ["Family & Friends (2026) - Mum's, Dad's + kids!"])


@check("member cap: moving a member into a full group is refused too")
def member_cap_on_move(rules):
    mover = rules.add_member("Hikers", "Mover")
    refused(lambda: rules.admin.execute(
        "update public.members set group_id = (select id from public.groups where name = 'Family') "
        "where user_id = %s", [mover]), "23514", message="group Family already has 12 members")


@check("member cap: 16 stations joining at once from 16 connections, exactly 12 get in")
def member_cap_concurrent(rules):
    rules.admin.execute("insert into public.groups (name) values ('Crowd')")
    users = [rules.new_user() for _ in range(16)]

    def join(user):
        def action(barrier):
            with rules.cluster.connect(rules.database) as connection, connection.transaction():
                barrier.wait()
                connection.execute("insert into public.members (group_id, user_id, name) "
                                   "select id, %s, 'Joiner' from public.groups where name = 'Crowd'", [user])
                connection.execute("select pg_sleep(0.05)")  # hold the transaction open: the others must wait
            return "joined"
        return action

    results = run_together([join(user) for user in users])
    joined = results.count("joined")
    refusals = [r for r in results if isinstance(r, psycopg.Error) and "Crowd already has 12 members" in str(r)]
    assert joined == 12 and len(refusals) == 4, f"joined {joined}, refused {len(refusals)}: {results}"
    assert count(rules, "select count(*) from public.members m join public.groups g on g.id = m.group_id "
                        "where g.name = 'Crowd'") == 12


@check("daily rule: 12 stations racing on 12 connections, each sharing twice in one transaction")
def daily_rule_race_in_transaction(rules):
    members = rules.add_group("Racers", 12, prefix="Racer")
    stations = [rules.station(user) for user in members]

    def share_twice(station, index):
        def action(barrier):
            with station.transaction() as connection:
                barrier.wait()
                connection.execute(*insert_photo("Racers", f"race-{index}-a"))
                connection.execute("select pg_sleep(0.03)")
                try:
                    with connection.transaction():  # a savepoint: the first photo stays
                        connection.execute(*insert_photo("Racers", f"race-{index}-b"))
                except psycopg.Error as error:
                    return error
            return "both shared"
        return action

    results = run_together([share_twice(station, index) for index, station in enumerate(stations)])
    for station in stations:
        station.close()
    constraints = {getattr(getattr(r, "diag", None), "constraint_name", r) for r in results}
    codes = {getattr(r, "sqlstate", r) for r in results}
    assert codes == {"23505"} and constraints == {"one_photo_per_member_per_day"}, results
    assert count(rules, "select count(*) from public.group_photos where group_name = 'Racers'") == 12


@check("daily rule: 24 connections, two per station, in concurrent transactions: exactly one photo each")
def daily_rule_race_across_transactions(rules):
    members = rules.admin.execute("select m.user_id from public.members m join public.groups g on g.id = m.group_id "
                                  "where g.name = 'Racers'").fetchall()
    yesterday, taken = TODAY - timedelta(days=1), NOW - timedelta(hours=20)
    stations = [rules.station(user) for (user,) in members for _ in range(2)]

    def share(station, index):
        def action(barrier):
            with station.transaction() as connection:
                barrier.wait()
                connection.execute(*insert_photo("Racers", f"yesterday-{index}", yesterday, taken))
                connection.execute("select pg_sleep(0.03)")
            return "shared"
        return action

    results = run_together([share(station, index) for index, station in enumerate(stations)])
    for station in stations:
        station.close()
    losers = [r for r in results if r != "shared"]
    assert results.count("shared") == 12 and len(losers) == 12, results
    assert all(r.sqlstate == "23505" and r.diag.constraint_name == "one_photo_per_member_per_day"
               for r in losers), losers
    assert count(rules, "select count(*) from public.group_photos where group_name = 'Racers' and day = %s",
                 [yesterday]) == 12


@check("daily rule: a station in two groups shares one photo in each the same day, not two in one")
def daily_rule_per_group(rules):
    user = rules.add_member("Climbers", "Kitchen")
    rules.add_member("Hikers", "Kitchen", user)
    station = rules.station(user)
    station.share("Climbers", "two-groups-1")
    station.share("Hikers", "two-groups-2")
    refused(lambda: station.share("Climbers", "two-groups-3"), "23505", "one_photo_per_member_per_day")
    refused(lambda: station.share("Hikers", "two-groups-1"), "23505")  # the same photo id twice
    station.close()


@check("server-filled fields: member_id is the caller, member_name comes from members")
def server_filled_fields(rules):
    user = rules.add_member("Bakers", "Oven")
    station = rules.station(user)
    station.share("Bakers", "filled-1")
    row = rules.admin.execute("select member_id, member_name from public.group_photos where photo_id = 'filled-1'")
    assert row.fetchone() == (user, "Oven")
    refused(lambda: station.share("Bakers", "filled-2", member_name="Someone else"), "42501",
            message="permission denied")
    station.close()


@check("RLS insert: not as another member, not into a group it is not in, not with an unknown or anon key")
def rls_insert(rules):
    me, other = rules.add_member("Painters", "Easel"), rules.add_member("Painters", "Brush")
    outsider_group = rules.add_member("Sculptors", "Chisel")
    station = rules.station(me)
    refused(lambda: station.share("Painters", "as-other", member_id=other), "42501", message="row-level security")
    refused(lambda: station.share("Sculptors", "not-mine"), "42501", message="row-level security")
    unknown = rules.station(uuid.uuid4())
    refused(lambda: unknown.share("Painters", "unknown-key"), "42501", message="row-level security")
    anon = rules.station(None, role="anon")
    refused(lambda: anon.share("Painters", "anon-key"), "42501", message="permission denied")
    for caller in (station, unknown, anon):
        caller.close()
    assert outsider_group


@check("RLS insert: row checks hold (size, 48-hour expiry, folder); the day is when taken; nothing past now + 49 h")
def row_checks(rules):
    station = rules.station(rules.add_member("Checkers", "Board"))
    refused(lambda: station.share("Checkers", "big", byte_size=20 * 1024 * 1024 + 1), "23514", "byte_size_up_to_20_mb")
    refused(lambda: station.share("Checkers", "long", expires_at=NOW + timedelta(hours=48, minutes=1)),
            "23514", "expires_within_48_hours")
    refused(lambda: station.share("Checkers", "elsewhere", object_path="Family/x.jpg"), "23514",
            "object_in_group_folder")
    refused(lambda: station.share("Checkers", "old-day", day=TODAY - timedelta(days=3)), "42501",
            message="row-level security")
    future = NOW + timedelta(hours=3)
    refused(lambda: station.share("Checkers", "future", day=future.date(), taken=future), "42501",
            message="row-level security")
    station.share("Checkers", "fine", byte_size=2_000_000)
    station.close()


@check("RLS read: a member reads only its groups' unexpired rows; unknown key nothing; anon refused")
def rls_read(rules):
    reader = rules.add_member("Readers", "Lamp")
    writer = rules.station(rules.add_member("Readers", "Pen"))
    writer.share("Readers", "fresh")
    taken = NOW - timedelta(hours=50)
    writer.share("Readers", "expired", day=taken.date(), taken=taken, expires_at=taken + timedelta(hours=48))
    writer.close()
    station = rules.station(reader)
    groups = {group for (group,) in station.run("select distinct group_name from public.group_photos")}
    ids = {photo for (photo,) in station.run("select photo_id from public.group_photos")}
    assert groups == {"Readers"} and ids == {"fresh"}, (groups, ids)
    assert [name for (name,) in station.run("select name from public.members order by name")] == ["Lamp", "Pen"]
    unknown = rules.station(uuid.uuid4())
    assert unknown.run("select * from public.group_photos") == []
    assert unknown.run("select * from public.members") == []
    anon = rules.station(None, role="anon")
    refused(lambda: anon.run("select * from public.group_photos"), "42501", message="permission denied")
    for caller in (station, unknown, anon):
        caller.close()


@check("RLS: nobody updates or deletes rows, or adds members, through the API")
def rls_no_changes(rules):
    station = rules.station(rules.add_member("Readers", "Clock"))
    refused(lambda: station.run("update public.group_photos set day = day"), "42501", message="permission denied")
    refused(lambda: station.run("delete from public.group_photos"), "42501", message="permission denied")
    refused(lambda: station.run("insert into public.members (group_id, user_id, name) select id, auth.uid(), 'x' "
                                "from public.groups"), "42501", message="permission denied")
    refused(lambda: station.run("select public.snapstation_expire_photos()"), "42501", message="permission denied")
    station.close()


@check("storage: upload only into one's groups' folders; rewrite only one's own objects")
def storage_upload(rules):
    a, b = rules.add_member("Gardeners", "Rake"), rules.add_member("Gardeners", "Hoe")
    station_a, station_b = rules.station(a), rules.station(b)
    put_object(station_a, f"Gardeners/{TODAY}/a.jpg")
    put_object(station_a, f"Gardeners/{TODAY}/a.jpg", upsert=True)
    refused(lambda: put_object(station_a, f"Family/{TODAY}/a.jpg"), "42501", message="row-level security")
    refused(lambda: put_object(station_a, "loose.jpg"), "42501", message="row-level security")
    refused(lambda: put_object(station_b, f"Gardeners/{TODAY}/a.jpg", upsert=True), "42501",
            message="row-level security")
    unknown, anon = rules.station(uuid.uuid4()), rules.station(None, role="anon")
    refused(lambda: put_object(unknown, f"Gardeners/{TODAY}/u.jpg"), "42501")
    refused(lambda: put_object(anon, f"Gardeners/{TODAY}/n.jpg"), "42501")
    for caller in (station_a, station_b, unknown, anon):
        caller.close()


@check("storage: members read their groups' objects, others nothing; only the owner deletes, through the API")
def storage_read_delete(rules):
    a, b = rules.add_member("Gardeners", "Spade"), rules.add_member("Gardeners", "Fork")
    outsider = rules.add_member("Sculptors", "Hammer")
    station_a, station_b, station_out = rules.station(a), rules.station(b), rules.station(outsider)
    name = f"Gardeners/{TODAY}/spade.jpg"
    put_object(station_a, name)
    find = "select name from storage.objects where bucket_id = 'snapstation' and name = %s"
    assert station_b.run(find, [name]) == [(name,)]
    assert station_out.run(find, [name]) == []
    # As on Supabase, only the Storage API deletes objects: a plain SQL delete is refused, even the owner's.
    refused(lambda: station_a.run("delete from storage.objects where name = %s", [name]), "42501",
            message="Direct deletion from storage tables is not allowed")
    refused(lambda: rules.admin.execute("delete from storage.objects where name = %s", [name]), "42501")
    assert remove_object(station_b, name) == 0, "a member deleted another member's object"
    assert remove_object(station_out, name) == 0
    assert remove_object(station_a, name) == 1
    for caller in (station_a, station_b, station_out):
        caller.close()


@check("cleanup: snapstation_expire_photos() deletes the expired rows and only those")
def cleanup(rules):
    station = rules.station(rules.add_member("Sweepers", "Broom"))
    for hours_ago, photo in ((75, "gone-1"), (50, "gone-2"), (1, "kept")):
        taken = NOW - timedelta(hours=hours_ago)
        station.share("Sweepers", photo, day=taken.date(), taken=taken)
    station.close()
    expired = count(rules, "select count(*) from public.group_photos where expires_at <= now()")
    unexpired = count(rules, "select count(*) from public.group_photos where expires_at > now()")
    assert expired >= 2
    assert count(rules, "select public.snapstation_expire_photos()") == expired
    assert count(rules, "select count(*) from public.group_photos where expires_at <= now()") == 0
    assert count(rules, "select count(*) from public.group_photos") == unexpired
    assert count(rules, "select count(*) from public.group_photos where photo_id = 'kept'") == 1


@check("schedule: the whole file (with pg_cron) loads twice into 'postgres'; one job every 15 minutes")
def schedule(rules):
    with rules.cluster.connect("postgres") as connection:
        for _ in range(2):
            connection.execute(groupdb.PRELUDE.read_text())
            connection.execute(groupdb.SCHEMA.read_text())
        jobs = connection.execute("select schedule, command, active from cron.job "
                                  "where jobname = 'snapstation-expire-photos'").fetchall()
        assert len(jobs) == 1, jobs
        schedule_, command, active = jobs[0]
        assert schedule_ == "*/15 * * * *" and active and "public.snapstation_expire_photos()" in command, jobs
        # What the job runs, run now (pg_cron 1.4 cannot schedule faster than every minute).
        assert connection.execute(command).fetchone()[0] == 0
        scheduler = connection.execute("select count(*) from pg_stat_activity "
                                       "where backend_type = 'pg_cron launcher'").fetchone()[0]
        assert scheduler == 1, "pg_cron's launcher is not running"


# ---------------------------------------------------------------------------------------------------------

def main():
    cluster = groupdb.Cluster.from_environment()
    cluster.check_reachable()
    began = time.monotonic()
    cluster.create_database(DATABASE)
    rules = Rules(cluster, DATABASE)
    passed = failed = 0
    for title, function in checks:
        start = time.monotonic()
        try:
            function(rules)
            outcome, passed = "ok  ", passed + 1
        except Exception as error:  # every failure is reported, then the next check runs
            outcome, failed = "FAIL", failed + 1
            print(f"     {type(error).__name__}: {error}")
        print(f"{outcome} {(time.monotonic() - start) * 1000:6.0f} ms  {title}", flush=True)
    rules.admin.close()
    if "--keep" not in sys.argv:
        cluster.drop_database(DATABASE)
    print(f"group rules took {time.monotonic() - began:.1f}s")
    print(f"group rules: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
