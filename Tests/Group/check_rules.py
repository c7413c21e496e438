#!/usr/bin/env python3
"""Checks the rules of docs/supabase/schema.sql on a real PostgreSQL 15 (Tests/Group/postgres.sh start).

    python3 Tests/Group/check_rules.py [--keep]

Loads Tests/Group/prelude.sql and the schema into a fresh database, then runs real SQL the way the APIs
do: as the `authenticator` login, each transaction switched to the caller's role with its JWT claims
(`set local role authenticated; select set_config('request.jwt.claims', ..., true)`). Concurrent checks use
one connection per station. Prints each check with its time and `group rules: N passed, M failed`; exits
non-zero on any failure. --keep leaves the database (snapstation_rules) for a look with psql.
"""
import hashlib
import json
import re
import sys
import time
import uuid
from datetime import datetime, timedelta

import groupdb
from groupdb import psycopg, sql
from rules_harness import (NOW, OTHER_DAY, TODAY, Rules, age, count, insert_photo, insert_row, photo_path, photo_row,
                           put_object, refused, remove_object, run_together)

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

@check("schema: loads into a fresh database, and loads again over itself with the same rules")
def schema_loads(rules):
    loaded = []
    for _ in range(2):
        rules.admin.execute(groupdb.PRELUDE.read_text())
        rules.admin.execute(groupdb.schema_without_schedule())
        loaded.append(rules_of(rules.admin))
    assert loaded[0] == loaded[1], "loading the schema again changed its rules"
    tables = {name for (name,) in rules.admin.execute(
        "select tablename from pg_tables where schemaname = 'public' and rowsecurity")}
    assert tables == {"groups", "members", "group_photos", "group_invites", "invite_attempts"}, tables


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
            upgraded = rules_of(connection)
            policies = {name for (name,) in connection.execute(
                "select policyname from pg_policies where schemaname = 'storage' and tablename = 'objects'")}
        assert columns == 1, "the old group_photos table is still there"
        assert all(name.startswith("snapstation: ") for name in policies), f"old policies left: {policies}"
        assert upgraded == rules_of(rules.admin), "the upgraded project's rules are not a new one's"
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
    folder = rules.folder("Racers")
    for index, user in enumerate(members):  # uploaded first, as the station does
        for suffix in "ab":
            rules.place_object(user, photo_path(folder, f"race-{index}-{suffix}"))

    def share_twice(station, index):
        def action(barrier):
            with station.transaction() as connection:
                barrier.wait()
                connection.execute(*insert_photo("Racers", f"race-{index}-a", folder=folder))
                connection.execute("select pg_sleep(0.03)")
                try:
                    with connection.transaction():  # a savepoint: the first photo stays
                        connection.execute(*insert_photo("Racers", f"race-{index}-b", folder=folder))
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
    stations = [rules.station(user) for (user,) in members for _ in range(2)]
    folder = rules.folder("Racers")
    for index, station in enumerate(stations):
        rules.place_object(station.user, photo_path(folder, f"other-day-{index}", OTHER_DAY))

    def share(station, index):
        def action(barrier):
            with station.transaction() as connection:
                barrier.wait()
                connection.execute(*insert_photo("Racers", f"other-day-{index}", OTHER_DAY, folder=folder))
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
                 [OTHER_DAY]) == 12


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


@check("RLS insert: row checks hold (size, an expiry already past); not outside the group's folder; not 3 days off")
def row_checks(rules):
    user = rules.add_member("Checkers", "Board")
    station = rules.station(user)
    refused(lambda: station.share("Checkers", "big", byte_size=20 * 1024 * 1024 + 1), "23514", "byte_size_up_to_20_mb")
    refused(lambda: station.share("Checkers", "past", expires_at=NOW - timedelta(minutes=1)),
            "23514", "expires_within_48_hours")
    # Outside the group's folder: another group's, or a folder named after a group (no folder a policy
    # allows); the object is the caller's own, so the folder alone refuses it.
    for folder in (rules.folder("Family"), "Checkers", "Family"):
        elsewhere = rules.place_object(user, f"{folder}/{TODAY}/elsewhere.jpg")
        refused(lambda: station.share("Checkers", "elsewhere", object_path=elsewhere, upload=False), "42501",
                message="row-level security")
    # A day no longer current anywhere, or not yet begun anywhere, whatever taken_at says.
    for days in (-3, -2, 2, 3):
        day = TODAY + timedelta(days=days)
        refused(lambda: station.share("Checkers", f"day{days}", day=day, taken=NOW + timedelta(days=days)), "42501",
                message="row-level security")
    station.share("Checkers", "fine", byte_size=2_000_000)
    station.close()


@check("RLS read: a member reads only its groups' unexpired rows; unknown key nothing; anon refused")
def rls_read(rules):
    reader = rules.add_member("Readers", "Lamp")
    writer = rules.station(rules.add_member("Readers", "Pen"))
    writer.share("Readers", "expired", day=OTHER_DAY)
    age(rules, "expired", hours=50)  # shared 50 hours ago
    writer.share("Readers", "fresh")
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


@check("storage: upload only into one's groups' folders (not under a group's name); rewrite only one's own objects")
def storage_upload(rules):
    a, b = rules.add_member("Gardeners", "Rake"), rules.add_member("Gardeners", "Hoe")
    station_a, station_b = rules.station(a), rules.station(b)
    mine = rules.folder("Gardeners")
    put_object(station_a, f"{mine}/{TODAY}/a.jpg")
    put_object(station_a, f"{mine}/{TODAY}/a.jpg", upsert=True)
    refused(lambda: put_object(station_a, f"{rules.folder('Family')}/{TODAY}/a.jpg"), "42501",
            message="row-level security")
    for name in (f"Gardeners/{TODAY}/a.jpg", f"{mine.upper()}/{TODAY}/a.jpg", "loose.jpg", f"{uuid.uuid4()}/a.jpg"):
        refused(lambda: put_object(station_a, name), "42501", message="row-level security")
    refused(lambda: put_object(station_b, f"{mine}/{TODAY}/a.jpg", upsert=True), "42501",
            message="row-level security")
    unknown, anon = rules.station(uuid.uuid4()), rules.station(None, role="anon")
    refused(lambda: put_object(unknown, f"{mine}/{TODAY}/u.jpg"), "42501")
    refused(lambda: put_object(anon, f"{mine}/{TODAY}/n.jpg"), "42501")
    for caller in (station_a, station_b, unknown, anon):
        caller.close()


@check("storage: members read their groups' objects, others nothing; only the owner deletes, through the API")
def storage_read_delete(rules):
    a, b = rules.add_member("Gardeners", "Spade"), rules.add_member("Gardeners", "Fork")
    outsider = rules.add_member("Sculptors", "Hammer")
    station_a, station_b, station_out = rules.station(a), rules.station(b), rules.station(outsider)
    name = rules.path("Gardeners", "spade")
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


# ---------------------------------------------------------------------------------------------------------
# Photo ids, the server's times and the day rule; each group's own folder

BAD_PHOTO_IDS = ("../../x", "/abs/path", "a/../../x", "x" * 300, "x" * 65, "", "..", "a.b", "abc\n", "a b", "caf\u00e9")


@check("photo ids: letters, digits, - and _, 1 to 64: ../../x, /abs/path, a/../../x, 300 characters refused (23514)")
def photo_ids(rules):
    user = rules.add_member("Namers", "Quill")
    station = rules.station(user)
    path = rules.place_object(user, rules.path("Namers", "plain"))  # the caller's own object: only the id is wrong
    for photo_id in BAD_PHOTO_IDS:
        refused(lambda: station.share("Namers", photo_id, object_path=path, upload=False), "23514",
                "photo_id_is_a_plain_name")
        # A check, not a policy: it binds the admin too.
        row = photo_row("Namers", photo_id, member_id=user, object_path=path)
        refused(lambda: rules.admin.execute(*insert_row(row)), "23514", "photo_id_is_a_plain_name")
    # A NUL never reaches a row: text refuses it, in SQL and in the JSON the REST API inserts from.
    refused(lambda: station.run("select 'a' || chr(0) || 'b'"), "54000", message="null character not permitted")
    refused(lambda: station.run("select photo_id from json_populate_recordset(null::public.group_photos, %s::json)",
                                [json.dumps([{"photo_id": "a\x00b"}])]), "22P05",
            message="unsupported Unicode escape sequence")
    assert count(rules, "select count(*) from public.group_photos where group_name = 'Namers'") == 0
    # What stations make, and the shortest and longest.
    fine = ("20261123-120000-ab12", "A_z-09", "x" * 64, "-", "_")
    for index, photo_id in enumerate(fine):
        namer = rules.station(rules.add_member("Namers", f"Namer {index}"))
        namer.share("Namers", photo_id)
        namer.close()
    assert sorted(p for (p,) in rules.admin.execute("select photo_id from public.group_photos "
                                                    "where group_name = 'Namers'")) == sorted(fine)
    station.close()


def share_in_transaction(rules, user, row):
    """Uploads the row's object and inserts the row as `user`; answers the transaction's now(), which is
    what the server stamps, and the stored taken_at, expires_at and created_at."""
    rules.place_object(user, row["object_path"])
    station = rules.station(user)
    try:
        with station.transaction() as connection:
            connection.execute(*insert_row(row))
            now = connection.execute("select now()").fetchone()[0]
    finally:
        station.close()
    stored = rules.admin.execute("select taken_at, expires_at, created_at from public.group_photos "
                                 "where photo_id = %s", [row["photo_id"]]).fetchone()
    return now, stored


@check("server times: taken_at is the server's now() whatever is sent; expires_at at most 48 h on, an earlier one kept")
def server_times(rules):
    users = rules.add_group("Clocks", 5, prefix="Clock")
    folder = rules.folder("Clocks")
    hours = timedelta(hours=1)
    # taken_at sent a week ago, expires_at 10 days ahead: now() and now() + 48 h.
    now, stored = share_in_transaction(rules, users[0], photo_row(
        "Clocks", "week-old", folder=folder, taken_at=NOW - timedelta(days=7), expires_at=NOW + 240 * hours))
    assert stored == (now, now + 48 * hours, now), (now, stored)
    # taken_at two days ahead, expires_at an hour ahead: the station's own earlier expiry stays.
    early = NOW + hours
    now, stored = share_in_transaction(rules, users[1], photo_row(
        "Clocks", "early", folder=folder, taken_at=NOW + 48 * hours, expires_at=early))
    assert stored == (now, early, now), (now, stored)
    # Neither sent: the server's.
    row = photo_row("Clocks", "unsent", folder=folder)
    del row["taken_at"], row["expires_at"]
    now, stored = share_in_transaction(rules, users[2], row)
    assert stored == (now, now + 48 * hours, now), (now, stored)
    # An expiry already past is refused (the row would be hidden at once); the admin's rows are stamped too.
    refused(lambda: share_in_transaction(rules, users[3], photo_row(
        "Clocks", "expired", folder=folder, expires_at=NOW - timedelta(minutes=1))), "23514", "expires_within_48_hours")
    rules.admin.execute(*insert_row(photo_row("Clocks", "by-admin", folder=folder, member_id=users[4],
                                              taken_at=NOW - timedelta(days=30), expires_at=NOW + 100 * hours)))
    taken, expires, created = rules.admin.execute("select taken_at, expires_at, created_at from public.group_photos "
                                                  "where photo_id = 'by-admin'").fetchone()
    assert taken == created and expires == created + 48 * hours, (taken, expires, created)


@check("day rule: a row's day must be current somewhere on Earth now, the UTC-12 date to the UTC+14 date")
def day_rule_now(rules):
    users = rules.add_group("Calendars", 11, prefix="Page")
    folder = rules.folder("Calendars")
    accepted, expected = [], []
    for offset, user in zip(range(-5, 6), users):
        day = TODAY + timedelta(days=offset)
        rules.place_object(user, photo_path(folder, f"page{offset}", day))
        station = rules.station(user)
        with station.transaction() as connection:
            utc = connection.execute("select now() at time zone 'UTC'").fetchone()[0]
            try:
                with connection.transaction():
                    connection.execute(*insert_photo("Calendars", f"page{offset}", day, folder=folder))
                accepted.append(day)
            except psycopg.Error as error:
                assert error.sqlstate == "42501" and "row-level security" in str(error), error
        station.close()
        if (utc - timedelta(hours=12)).date() <= day <= (utc + timedelta(hours=14)).date():
            expected.append(day)
    assert accepted == expected and 2 <= len(accepted) <= 3 and TODAY in accepted, (accepted, expected)
    # The same days as the time zones at both ends of the Earth have them (POSIX names: Etc/GMT+12 is UTC-12).
    first, last, edges = rules.admin.execute(
        "select (now() at time zone 'Etc/GMT+12')::date, (now() at time zone 'Etc/GMT-14')::date, "
        "array[public.snapstation_day_is_current((now() at time zone 'Etc/GMT+12')::date - 1, now()), "
        "      public.snapstation_day_is_current((now() at time zone 'Etc/GMT+12')::date, now()), "
        "      public.snapstation_day_is_current((now() at time zone 'Etc/GMT-14')::date, now()), "
        "      public.snapstation_day_is_current((now() at time zone 'Etc/GMT-14')::date + 1, now())]").fetchone()
    assert edges == [False, True, True, False] and (last - first).days in (1, 2), (first, last, edges)


@check("day rule: the audit's seven rows at once get 2 or 3 in; over any 48 hours at most 5 days are current, "
       "so at most 5 of a member's rows are visible at once (7 before)")
def day_rule_audit(rules):
    mallory, reader = rules.add_member("Audit", "Mallory"), rules.add_member("Audit", "Reader")
    station = rules.station(mallory)
    # The audit's rows: days from 3 before to 3 after, taken_at from 48 h ago to 48 h ahead, each expiring
    # as late as the previous rules let it (now + 49 h).
    for offset in range(-3, 4):
        try:
            station.share("Audit", f"audit{offset + 3}", day=TODAY + timedelta(days=offset),
                          taken=NOW + timedelta(hours=16 * offset), expires_at=NOW + timedelta(hours=49))
        except psycopg.Error as error:
            assert error.sqlstate == "42501", error
    station.close()
    station = rules.station(reader)
    visible = station.run("select day, taken_at, expires_at, created_at from public.group_photos "
                          "where group_name = 'Audit'")
    station.close()
    assert 2 <= len(visible) <= 3, visible
    assert all(taken == created and expires == created + timedelta(hours=48) for _, taken, expires, created in visible)
    # Over time: a row is visible for at most 48 hours after it came in, and each of a member's rows in a
    # group has a day of its own that was current when it came in. So at any moment T at most as many of
    # its rows are visible as there were days current at some moment of the 48 hours before T. The rule
    # itself answers, for every half hour T of a day and every quarter hour of the 48 hours before it.
    per_end = rules.admin.execute("""
        with ends as (
            select date_trunc('day', now()) + make_interval(mins => 30 * n) as t from generate_series(0, 47) n
        ), moments as (
            select t, t - make_interval(mins => 15 * k) as moment from ends, generate_series(0, 191) k
            union all
            select t, t - interval '48 hours' + interval '1 second' from ends
        ), current_days as (
            select t, moment, d::date as day
            from moments, generate_series(now() - interval '5 days', now() + interval '3 days', interval '1 day') d
            where public.snapstation_day_is_current(d::date, moment)
        ), per_moment as (
            select t, moment, count(*) as days from current_days group by t, moment
        )
        select extract(hour from c.t)::int, count(distinct c.day),
               (select min(days) from per_moment p where p.t = c.t),
               (select max(days) from per_moment p where p.t = c.t)
        from current_days c group by c.t order by c.t""").fetchall()
    assert len(per_end) == 48, per_end
    assert all(2 <= least and most <= 3 for _, _, least, most in per_end), per_end
    assert max(days for _, days, _, _ in per_end) == 5 and all(4 <= days <= 5 for _, days, _, _ in per_end), per_end
    # The worst: from 10:00 UTC (a new UTC+14 date) to noon (the UTC-12 date of 48 hours before ends).
    assert [hour for hour, days, _, _ in per_end if days == 5] == [10, 10, 11, 11], per_end


@check("folders: each group has its own random folder; a member reads its groups' folders, anyone else none")
def folders(rules):
    left = rules.add_member("Folders A", "Left")
    rules.add_member("Folders B", "Right")
    mine, theirs = rules.folder("Folders A"), rules.folder("Folders B")
    uuid_text = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
    assert mine != theirs and uuid_text.fullmatch(mine) and uuid_text.fullmatch(theirs), (mine, theirs)
    assert count(rules, "select count(distinct folder) from public.groups") == count(
        rules, "select count(*) from public.groups")
    station = rules.station(left)
    # What the station asks: GET /rest/v1/groups?select=folder&name=eq.NAME
    assert station.run("select folder::text from public.groups where name = 'Folders A'") == [(mine,)]
    assert station.run("select folder from public.groups where name = 'Folders B'") == []
    assert station.run("select public.snapstation_my_group_folders()") == [(mine,)]
    station.close()


@check("folders: a group made again under a freed name gets a new folder and reads none of the old group's objects")
def freed_name(rules):
    alice, bob, carol = (rules.station(rules.new_user()) for _ in range(3))
    alice.call("create_group", group_name="Freed", member_name="Alice")
    old = rules.folder("Freed")
    alice.share("Freed", "alice-1")
    shared = rules.path("Freed", "alice-1")
    left_behind = [shared] + [f"{old}/{TODAY}/alice-{index}.jpg" for index in range(2, 8)]
    for name in left_behind[1:]:
        put_object(alice, name)
    # Alice leaves and does not delete her objects (a station's delete can fail); the group and name go.
    assert alice.call("leave_group", group_name="Freed") == (200, [shared])
    assert count(rules, "select count(*) from public.groups where name = 'Freed'") == 0
    code = bob.call("create_group", group_name="Freed", member_name="Bob")[1]
    assert carol.call("join_group", invite_code=code, member_name="Carol") == (200, "Freed")
    new = rules.folder("Freed")
    assert new != old, new
    everything = "select name from storage.objects where bucket_id = 'snapstation' order by name"
    for caller in (bob, carol):
        assert caller.run(everything) == [], "the new group reads the old group's objects"
        assert caller.run("select name from storage.objects where name = any(%s)", [left_behind]) == []
        refused(lambda: put_object(caller, f"{old}/{TODAY}/mine.jpg"), "42501", message="row-level security")
        assert remove_object(caller, shared) == 0
    # The new group's own photos are read as ever; Alice still reads and deletes hers, and only hers.
    bob.share("Freed", "bob-1")
    assert carol.run(everything) == [(rules.path("Freed", "bob-1"),)]
    assert alice.run(everything) == [(name,) for name in sorted(left_behind)]
    assert all(remove_object(alice, name) == 1 for name in left_behind)
    for caller in (alice, bob, carol):
        caller.close()


# ---------------------------------------------------------------------------------------------------------
# Photo rows name the caller's own objects; photo ids are each member's

@check("RLS insert: a row must name an object the caller uploaded, under the row's group and day")
def rls_own_object(rules):
    a, b = rules.add_member("Owners", "Attic"), rules.add_member("Owners", "Barn")
    station_a = rules.station(a)
    theirs = rules.place_object(b, rules.path("Owners", "b1"))
    refused(lambda: station_a.share("Owners", "a-claims-b", object_path=theirs, upload=False), "42501",
            message="row-level security")
    refused(lambda: station_a.share("Owners", "a-nothing", upload=False), "42501", message="row-level security")
    yesterday = TODAY - timedelta(days=1)
    other_day = rules.place_object(a, rules.path("Owners", "a-other-day", yesterday))
    refused(lambda: station_a.share("Owners", "a-other-day", object_path=other_day, upload=False), "42501",
            message="row-level security")
    # Under the group's name instead of its folder (as the previous versions of schema.sql had it): refused.
    by_name = rules.place_object(a, f"Owners/{TODAY}/a-by-name.jpg")
    refused(lambda: station_a.share("Owners", "a-by-name", object_path=by_name, upload=False), "42501",
            message="row-level security")
    # Deeper folders under FOLDER/DAY/ are fine, when the object is the caller's.
    deeper = rules.place_object(a, f"{rules.folder('Owners')}/{TODAY}/{a}/a1.jpg")
    station_a.share("Owners", "a1", object_path=deeper, upload=False)
    assert count(rules, "select count(*) from public.group_photos where group_name = 'Owners'") == 1
    station_a.close()


@check("photo ids: the same photo_id from two members is accepted (one group, and two groups)")
def photo_id_per_member(rules):
    a, b = rules.add_member("Twins", "Left"), rules.add_member("Twins", "Right")
    for user in (a, b):
        station = rules.station(user)
        station.share("Twins", "same-id", upload=False,
                      object_path=rules.place_object(user, f"{rules.folder('Twins')}/{TODAY}/{user}/same-id.jpg"))
        station.close()
    c, d = rules.add_member("Alpha", "Up"), rules.add_member("Beta", "Down")
    rules.station(c).share("Alpha", "same-id-2")
    rules.station(d).share("Beta", "same-id-2")  # refused before: photo_id was unique across the project
    assert count(rules, "select count(*) from public.group_photos where photo_id in ('same-id', 'same-id-2')") == 4
    # The station's retried insert: ON CONFLICT (member_id, photo_id) DO NOTHING, what PostgREST runs for
    # ?on_conflict=member_id,photo_id with resolution=ignore-duplicates; on_conflict=photo_id no longer fits.
    station = rules.station(a)
    query, values = insert_photo("Twins", "same-id", object_path=f"{rules.folder('Twins')}/{TODAY}/{a}/same-id.jpg")
    assert station.run(query + sql.SQL(" on conflict (member_id, photo_id) do nothing"), values) == 0
    refused(lambda: station.run(query + sql.SQL(" on conflict (photo_id) do nothing"), values), "42P10",
            message="no unique or exclusion constraint matching the ON CONFLICT")
    station.close()


@check("schema: upgrades the previous version (photo_id unique across the project) and keeps its rows")
def schema_upgrades_photo_id(rules):
    database = DATABASE + "_upgrade_ids"
    rules.cluster.create_database(database)
    try:
        with rules.cluster.connect(database) as connection:
            connection.execute(groupdb.PRELUDE.read_text())
            connection.execute(groupdb.schema_without_schedule())
            # The previous version's constraint, and a row shared under it.
            connection.execute("alter table public.group_photos drop constraint one_row_per_photo;"
                               "alter table public.group_photos add constraint one_row_per_photo unique (photo_id)")
            user = uuid.uuid4()
            connection.execute("insert into auth.users (id) values (%s)", [user])
            connection.execute("insert into public.groups (name) values ('Old')")
            connection.execute("insert into public.members (group_id, user_id, name) "
                               "select id, %s, 'Old station' from public.groups", [user])
            connection.execute(*insert_row(photo_row("Old", "old-1", member_id=user, object_path="any/old-1.jpg")))
            connection.execute(groupdb.schema_without_schedule())
            definition = connection.execute(
                "select pg_get_constraintdef(oid) from pg_constraint where conname = 'one_row_per_photo' "
                "and conrelid = 'public.group_photos'::regclass").fetchone()[0]
            rows = connection.execute("select count(*) from public.group_photos").fetchone()[0]
        assert definition == "UNIQUE (member_id, photo_id)" and rows == 1, (definition, rows)
    finally:
        rules.cluster.drop_database(database)


# What the previous docs/supabase/schema.sql had where this one differs, put back over the current file: photo
# ids checked for their length only, the station's own times and a day near them, each group's objects
# under its name.
PREVIOUS_VERSION = """
drop trigger stamp_share on public.group_photos;
drop function public.snapstation_stamp_share();
drop policy "members share into their groups" on public.group_photos;
create policy "members share into their groups" on public.group_photos
    for insert to authenticated
    with check (
        member_id = (select auth.uid())
        and group_name in (select public.snapstation_my_groups())
        and expires_at <= now() + interval '49 hours'
        and day between (taken_at at time zone 'UTC')::date - 1 and (taken_at at time zone 'UTC')::date + 1
        and (storage.foldername(object_path))[1:2] = array[group_name, to_char(day, 'YYYY-MM-DD')]
        and exists (
            select from storage.objects o
            where o.bucket_id = 'snapstation' and o.name = object_path and o.owner_id = (select auth.uid()::text)
        )
    );
drop function public.snapstation_day_is_current(date, timestamptz);
alter table public.group_photos
    drop constraint photo_id_is_a_plain_name,
    add constraint photo_id_length check (length(photo_id) between 1 and 200),
    add constraint object_in_group_folder check (split_part(object_path, '/', 1) = group_name);
drop policy "snapstation: members upload into their groups" on storage.objects;
create policy "snapstation: members upload into their groups" on storage.objects
    for insert to authenticated
    with check (bucket_id = 'snapstation' and (storage.foldername(name))[1] in (select public.snapstation_my_groups()));
drop policy "snapstation: members rewrite their own uploads" on storage.objects;
create policy "snapstation: members rewrite their own uploads" on storage.objects
    for update to authenticated
    using (bucket_id = 'snapstation' and owner_id = (select auth.uid()::text))
    with check (bucket_id = 'snapstation' and owner_id = (select auth.uid()::text)
                and (storage.foldername(name))[1] in (select public.snapstation_my_groups()));
drop policy "snapstation: members read their groups" on storage.objects;
create policy "snapstation: members read their groups" on storage.objects
    for select to authenticated
    using (bucket_id = 'snapstation' and (storage.foldername(name))[1] in (select public.snapstation_my_groups()));
drop function public.snapstation_my_group_folders();
alter table public.groups drop column folder;
"""


def rules_of(connection):
    """What decides who may do what, as text: the constraints, columns, triggers and functions of `public`,
    and the policies of `public` and `storage`."""
    queries = {
        "constraints": "select conrelid::regclass::text, conname, pg_get_constraintdef(oid) from pg_constraint "
                       "where connamespace = 'public'::regnamespace",
        "columns": "select table_name, column_name, data_type, is_nullable, column_default "
                   "from information_schema.columns where table_schema = 'public'",
        "triggers": "select tgrelid::regclass::text, tgname, pg_get_triggerdef(oid) from pg_trigger "
                    "where not tgisinternal and tgrelid::regclass::text like 'public.%'",
        "functions": "select p.oid::regprocedure::text, md5(p.prosrc), p.prosecdef, p.provolatile, "
                     "coalesce(p.proconfig::text, ''), coalesce(p.proacl::text, '') "
                     "from pg_proc p where p.pronamespace = 'public'::regnamespace",
        "policies": "select schemaname, tablename, policyname, cmd, roles::text, coalesce(qual, ''), "
                    "coalesce(with_check, '') from pg_policies where schemaname in ('public', 'storage')",
    }
    return {name: sorted(connection.execute(query).fetchall()) for name, query in queries.items()}


@check("schema: upgrades the previous version to exactly the new rules: ids like ../../x go, groups get folders, "
       "objects under a group's name are their owners' alone")
def schema_upgrades_folders(rules):
    database = DATABASE + "_upgrade_folders"
    rules.cluster.create_database(database)
    project = Rules(rules.cluster, database)
    stations = []
    try:
        project.admin.execute(groupdb.PRELUDE.read_text())
        project.admin.execute(groupdb.schema_without_schedule())
        project.admin.execute(PREVIOUS_VERSION)
        alice, bob = project.add_member("Family", "Alice"), project.add_member("Family", "Bob")
        outsider = project.add_member("Others", "Carol")
        stations = [project.station(user) for user in (alice, bob, outsider)]
        station_a, station_b, station_c = stations
        # Under the previous rules: Alice's photo under the group's name, which Bob reads; and a row whose
        # id is a path (the audit's finding 1).
        photo, hostile = f"Family/{TODAY}/a1.jpg", f"Family/{OTHER_DAY}/a2.jpg"
        for name in (photo, hostile):
            put_object(station_a, name)
        station_a.share("Family", "a1", object_path=photo, upload=False)
        station_a.share("Family", "../../../victim", day=OTHER_DAY, object_path=hostile, upload=False)
        find = "select name from storage.objects where bucket_id = 'snapstation' and name = %s"
        assert station_b.run(find, [photo]) == [(photo,)]

        project.admin.execute(groupdb.schema_without_schedule())
        assert rules_of(project.admin) == rules_of(rules.admin), "the upgraded project's rules are not a new one's"
        rows = project.admin.execute("select photo_id from public.group_photos order by photo_id").fetchall()
        assert rows == [("a1",)], rows
        folders = [folder for (folder,) in project.admin.execute("select folder::text from public.groups")]
        assert len(set(folders)) == 2 and all(uuid.UUID(folder) for folder in folders), folders
        # The old objects are their owner's alone: Bob no longer reads them; Alice reads and deletes hers.
        assert station_b.run(find, [photo]) == [] and station_c.run(find, [photo]) == []
        assert station_a.run(find, [photo]) == [(photo,)]
        assert remove_object(station_a, photo) == 1 and remove_object(station_a, hostile) == 1
        # Sharing goes on under the group's folder; a row under its name is refused.
        refused(lambda: station_b.share("Family", "b-by-name", object_path=put_and_name(station_b, "Family")),
                "42501", message="row-level security")
        station_b.share("Family", "b1")
        assert sorted(p for (p,) in station_a.run("select photo_id from public.group_photos")) == ["a1", "b1"]
    finally:
        for station in stations:
            station.close()
        project.admin.close()
        rules.cluster.drop_database(database)


def put_and_name(station, folder):
    """An object of `station`'s under FOLDER/TODAY/ (where the policies let it upload), and its name."""
    name = f"{folder}/{TODAY}/{uuid.uuid4().hex[:8]}.jpg"
    station.rules.place_object(station.user, name)
    return name


# ---------------------------------------------------------------------------------------------------------
# Groups without SQL: create_group, join_group, group_invite, leave_group, group_members

CODE = re.compile(r"[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}")
RPCS = ("create_group(text,text)", "join_group(text,text)", "group_invite(text)", "leave_group(text)",
        "group_members(text)")


def members_of(rules, group):
    return sorted(name for (name,) in rules.admin.execute(
        "select m.name from public.members m join public.groups g on g.id = m.group_id where g.name = %s", [group]))


@check("rpc: the five functions run as their owner with an empty search_path; signed-in users only")
def rpc_definitions(rules):
    for signature in RPCS:
        definer, config = rules.admin.execute("select prosecdef, proconfig from pg_proc where oid = %s::regprocedure",
                                              [f"public.{signature}"]).fetchone()
        assert definer and config == ["search_path=\"\""], (signature, definer, config)
        allowed = {role: count(rules, "select has_function_privilege(%s, %s, 'execute')", [role, f"public.{signature}"])
                   for role in ("anon", "authenticated", "public")}
        assert allowed == {"anon": False, "authenticated": True, "public": False}, (signature, allowed)
    anon = rules.station(None, role="anon")
    refused(lambda: anon.call("create_group", group_name="Anon", member_name="x"), "42501",
            message="permission denied for function create_group")
    refused(lambda: anon.call("join_group", invite_code="ABCD-EFGH-JKLM", member_name="x"), "42501")
    anon.close()
    # A request with no user in it (the service-role key) has nobody to make a member.
    service = rules.station(None, role="service_role")
    refused(lambda: service.call("create_group", group_name="Service", member_name="x"), "PT401",
            message="sign in first")
    service.close()
    # The helpers, the codes and the attempts are out of the API's reach.
    station = rules.station(rules.new_user())
    for statement in ("select public.snapstation_new_invite(1)", "select * from public.group_invites",
                      "select * from public.invite_attempts", "select public.snapstation_invite_hash('x')"):
        refused(lambda: station.run(statement), "42501", message="permission denied")
    station.close()


@check("rpc create_group: the caller is its first member; answers a 12-character code, kept only as a hash")
def rpc_create_group(rules):
    owner = rules.new_user()
    station = rules.station(owner)
    status, code = station.call("create_group", group_name="Invited", member_name="  Kitchen ")
    assert status == 200 and CODE.fullmatch(code), (status, code)
    assert members_of(rules, "Invited") == ["Kitchen"]
    stored = rules.admin.execute("select i.code_hash, i.expires_at - now() from public.group_invites i "
                                 "join public.groups g on g.id = i.group_id where g.name = 'Invited'").fetchone()
    assert stored[0] == hashlib.sha256(code.replace("-", "").encode()).hexdigest(), stored
    assert timedelta(days=6, hours=23) < stored[1] <= timedelta(days=7), stored
    assert station.run("select name from public.groups") == [("Invited",)]
    refused(lambda: station.call("create_group", group_name="Invited", member_name="Hall"), "PT409",
            message="this group name is taken: choose another")
    for name in ("A/B", "Café", "", None, "x" * 101):
        refused(lambda: station.call("create_group", group_name=name, member_name="Hall"), "PT400",
                message="is not a group name")
    for name in ("", "   ", "x" * 61, "tab\there", None):
        refused(lambda: station.call("create_group", group_name="Fine name", member_name=name), "PT400",
                message="member_name must be 1 to 60 characters")
    codes = {station.call("create_group", group_name=f"Many {index}", member_name="K")[1] for index in range(20)}
    assert len(codes) == 20 and all(CODE.fullmatch(c) for c in codes), codes
    station.close()
    rules.invited_code = code


@check("rpc create_group: a taken name answers one PT409 to a member and to anyone else, naming no group or member")
def rpc_create_group_taken(rules):
    member, outsider = rules.station(rules.new_user()), rules.station(rules.new_user())
    assert CODE.fullmatch(member.call("create_group", group_name="Walled Garden", member_name="Secret Kitchen")[1])
    answers = []
    for caller in (member, outsider):
        error = refused(lambda: caller.call("create_group", group_name="Walled Garden", member_name="Hall"), "PT409")
        answers.append((error.diag.message_primary, error.diag.message_detail, error.diag.message_hint))
    assert answers[0] == answers[1], answers
    message, detail, hint = answers[0]
    assert message == "this group name is taken: choose another" and detail is None, answers
    assert not any(word in f"{message} {hint}" for word in ("Walled", "Garden", "Secret", "Kitchen", "12")), hint
    assert members_of(rules, "Walled Garden") == ["Secret Kitchen"]
    for caller in (member, outsider):
        caller.close()


@check("rpc join_group: the code (any case, dashes or not) joins; again changes nothing; members see each other")
def rpc_join_group(rules):
    code = rules.invited_code
    hall = rules.station(rules.new_user())
    assert hall.call("join_group", invite_code=code, member_name="Hall") == (200, "Invited")
    porch = rules.station(rules.new_user())
    assert porch.call("join_group", invite_code=" " + code.replace("-", "").lower(), member_name="Porch") == \
        (200, "Invited")
    assert hall.call("join_group", invite_code=code, member_name="Hall again") == (200, "Invited")
    assert members_of(rules, "Invited") == ["Hall", "Kitchen", "Porch"]
    assert sorted(name for (name,) in hall.run("select name from public.members")) == ["Hall", "Kitchen", "Porch"]
    refused(lambda: hall.call("join_group", invite_code=code, member_name=""), "PT400", message="member_name")
    for caller in (hall, porch):
        caller.close()


@check("rpc join_group: a 13th member is refused (409, 'already has 12 members'); 16 at once: 11 of them get in")
def rpc_join_cap(rules):
    founder = rules.station(rules.new_user())
    code = founder.call("create_group", group_name="Dozen", member_name="Founder")[1]
    founder.close()
    for index in range(11):
        joiner = rules.station(rules.new_user())
        assert joiner.call("join_group", invite_code=code, member_name=f"Member {index}") == (200, "Dozen")
        joiner.close()
    thirteenth = rules.station(rules.new_user())
    error = refused(lambda: thirteenth.call("join_group", invite_code=code, member_name="Thirteenth"), "PT409",
                    message="group Dozen already has 12 members")
    assert "leave first" in error.diag.message_hint, error.diag.message_hint
    thirteenth.close()
    assert len(members_of(rules, "Dozen")) == 12

    founder = rules.station(rules.new_user())
    code = founder.call("create_group", group_name="Rush", member_name="Founder")[1]
    founder.close()
    stations = [rules.station(rules.new_user()) for _ in range(16)]

    def join(station, index):
        def action(barrier):
            barrier.wait()
            return station.call("join_group", invite_code=code, member_name=f"Rusher {index}")
        return action

    results = run_together([join(station, index) for index, station in enumerate(stations)])
    for station in stations:
        station.close()
    joined = [r for r in results if r == (200, "Rush")]
    full = [r for r in results if isinstance(r, psycopg.Error) and r.sqlstate == "PT409"]
    assert len(joined) == 11 and len(full) == 5, results
    assert len(members_of(rules, "Rush")) == 12


@check("rpc join_group: a wrong code 403, an expired one 410, one replaced by group_invite 403; all counted")
def rpc_join_wrong_codes(rules):
    owner = rules.station(rules.new_user())
    code = owner.call("create_group", group_name="Guarded", member_name="Gate")[1]
    guest_user = rules.new_user()
    guest = rules.station(guest_user)
    status, answer = guest.call("join_group", invite_code="ABCD-EFGH-JKLM", member_name="Guest")
    assert status == 403 and answer["code"] == "PT403" and answer["message"] == "this invite code is not valid", answer
    assert answer["details"] == "1 of 10 wrong invite codes in the last hour", answer
    # Expired: 7 days on.
    rules.admin.execute("update public.group_invites set expires_at = now() - interval '1 minute' "
                        "where group_id = (select id from public.groups where name = 'Guarded')")
    status, answer = guest.call("join_group", invite_code=code, member_name="Guest")
    assert status == 410 and answer["code"] == "PT410" and "expired" in answer["message"], answer
    # Renewed by a member: the old code is refused, the new one works.
    status, renewed = owner.call("group_invite", group_name="Guarded")
    assert status == 200 and CODE.fullmatch(renewed) and renewed != code, renewed
    status, answer = guest.call("join_group", invite_code=code, member_name="Guest")
    assert (status, answer["message"]) == (403, "this invite code is not valid"), answer
    assert count(rules, "select count(*) from public.invite_attempts where user_id = %s", [guest_user]) == 3
    assert members_of(rules, "Guarded") == ["Gate"]
    assert guest.call("join_group", invite_code=renewed, member_name="Guest") == (200, "Guarded")
    # Any member may renew; an outsider may not, and learns nothing about the group.
    assert CODE.fullmatch(guest.call("group_invite", group_name="Guarded")[1])
    outsider = rules.station(rules.new_user())
    for group in ("Guarded", "No such group"):
        refused(lambda: outsider.call("group_invite", group_name=group), "PT403",
                message=f"you are not a member of group {group}")
    for caller in (owner, guest, outsider):
        caller.close()


@check("rpc join_group: 10 wrong codes an hour per user, then 429 even for a right code; an hour on, it works")
def rpc_join_attempt_limit(rules):
    owner = rules.station(rules.new_user())
    code = owner.call("create_group", group_name="Limited", member_name="Owner")[1]
    owner.close()
    user = rules.new_user()
    guesser = rules.station(user)
    for attempt in range(10):
        status, answer = guesser.call("join_group", invite_code=f"WRONG-{attempt}", member_name="Guesser")
        assert status == 403 and answer["details"].startswith(f"{attempt + 1} of 10"), (attempt, answer)
    error = refused(lambda: guesser.call("join_group", invite_code=code, member_name="Guesser"), "PT429",
                    message="too many wrong invite codes: try again after")
    assert "10 wrong invite codes an hour" in error.diag.message_hint
    assert count(rules, "select count(*) from public.invite_attempts where user_id = %s", [user]) == 10
    # Another user is not held back by this one's guesses.
    other = rules.station(rules.new_user())
    assert other.call("join_group", invite_code=code, member_name="Other") == (200, "Limited")
    other.close()
    # An hour later the attempts no longer count, and the cleanup forgets them.
    rules.admin.execute("update public.invite_attempts set attempted_at = attempted_at - interval '61 minutes' "
                        "where user_id = %s", [user])
    assert guesser.call("join_group", invite_code=code, member_name="Guesser") == (200, "Limited")
    rules.admin.execute("select public.snapstation_expire_photos()")
    assert count(rules, "select count(*) from public.invite_attempts where user_id = %s", [user]) == 0
    guesser.close()


@check("rpc join_group: 20 wrong codes at once from one user on 20 connections: exactly 10 counted, 10 get 429")
def rpc_join_attempt_limit_concurrent(rules):
    user = rules.new_user()
    stations = [rules.station(user) for _ in range(20)]

    def guess(station, index):
        def action(barrier):
            barrier.wait()
            return station.call("join_group", invite_code=f"GUESS-{index:04}", member_name="Guesser")
        return action

    results = run_together([guess(station, index) for index, station in enumerate(stations)])
    for station in stations:
        station.close()
    wrong = [r for r in results if isinstance(r, tuple) and r[0] == 403]
    limited = [r for r in results if isinstance(r, psycopg.Error) and r.sqlstate == "PT429"]
    assert len(wrong) == 10 and len(limited) == 10, results
    assert count(rules, "select count(*) from public.invite_attempts where user_id = %s", [user]) == 10


@check("rpc leave_group: the member's rows and membership go; it sees nothing of the group, deletes its objects")
def rpc_leave_group(rules):
    stay_user, leave_user = rules.new_user(), rules.new_user()
    stay, leave = rules.station(stay_user), rules.station(leave_user)
    code = stay.call("create_group", group_name="Leavers", member_name="Stays")[1]
    assert leave.call("join_group", invite_code=code, member_name="Leaves") == (200, "Leavers")
    stay.share("Leavers", "stays-1")
    leave.share("Leavers", "leaves-1")
    stays_1, leaves_1 = rules.path("Leavers", "stays-1"), rules.path("Leavers", "leaves-1")
    sticker = rules.place_object(leave_user, f"{rules.folder('Leavers')}/{TODAY}/leaves-1-sticker.png")
    assert len(leave.run("select photo_id from public.group_photos where group_name = 'Leavers'")) == 2
    find = "select name from storage.objects where bucket_id = 'snapstation' and name = %s"
    assert leave.run(find, [stays_1]) != []

    assert leave.call("leave_group", group_name="Leavers") == (200, [leaves_1])
    assert members_of(rules, "Leavers") == ["Stays"]
    assert count(rules, "select count(*) from public.group_photos where group_name = 'Leavers' and member_id = %s",
                 [leave_user]) == 0
    assert count(rules, "select count(*) from public.group_photos where group_name = 'Leavers'") == 1
    # It no longer sees the group's photos, members, name or the other members' objects...
    assert leave.run("select * from public.group_photos") == []
    assert leave.run("select * from public.members") == []
    assert leave.run("select * from public.groups") == []
    assert leave.run(find, [stays_1]) == []
    refused(lambda: leave.share("Leavers", "leaves-2", upload=False), "42501", message="row-level security")
    # ...but still deletes its own objects through the Storage API.
    assert remove_object(leave, leaves_1) == 1
    assert remove_object(leave, sticker) == 1
    assert remove_object(leave, stays_1) == 0
    refused(lambda: leave.call("leave_group", group_name="Leavers"), "PT404",
            message="you are not a member of group Leavers")
    refused(lambda: leave.call("group_invite", group_name="Leavers"), "PT403")
    # The last member leaving takes the group and its code with it; the name is free again.
    assert stay.call("leave_group", group_name="Leavers") == (200, [stays_1])
    assert count(rules, "select count(*) from public.groups where name = 'Leavers'") == 0
    assert count(rules, "select count(*) from public.group_invites i where not exists "
                        "(select from public.groups g where g.id = i.group_id)") == 0
    status, answer = leave.call("join_group", invite_code=code, member_name="Leaves")
    assert status == 403, (status, answer)
    assert CODE.fullmatch(leave.call("create_group", group_name="Leavers", member_name="Leaves again")[1])
    for caller in (stay, leave):
        caller.close()


def last_shared(rules, group):
    """Each member's last_shared_at, by name, read as the admin."""
    return dict(rules.admin.execute("select m.name, m.last_shared_at from public.members m "
                                    "join public.groups g on g.id = m.group_id where g.name = %s", [group]).fetchall())


def listed(answer):
    """group_members' JSON rows as (name, is_caller, last_shared_at); the times parsed."""
    return [(row["member_name"], row["is_caller"], row["last_shared_at"] and datetime.fromisoformat(row["last_shared_at"]))
            for row in answer]


@check("rpc group_members: members in join order, is_caller the caller's own row; last_shared_at null until a share")
def rpc_group_members(rules):
    users = [rules.new_user() for _ in range(3)]
    door, attic, cellar = (rules.station(user) for user in users)
    code = door.call("create_group", group_name="Roll Call", member_name="Door")[1]
    # Each joins in a transaction of its own, so each later than the one before (and not in name order).
    assert attic.call("join_group", invite_code=code, member_name="Attic") == (200, "Roll Call")
    assert cellar.call("join_group", invite_code=code, member_name="Cellar") == (200, "Roll Call")
    status, answer = cellar.call("group_members", group_name="Roll Call")
    assert status == 200 and [set(row) for row in answer] == [{"member_name", "joined_at", "last_shared_at",
                                                               "is_caller"}] * 3, answer
    joined = [datetime.fromisoformat(row["joined_at"]) for row in answer]
    assert joined == sorted(joined) and len(set(joined)) == 3, joined
    stored = rules.admin.execute("select m.name, m.created_at from public.members m join public.groups g "
                                 "on g.id = m.group_id where g.name = 'Roll Call' order by m.created_at").fetchall()
    assert [(row["member_name"], datetime.fromisoformat(row["joined_at"])) for row in answer] == stored, answer
    assert listed(answer) == [("Door", False, None), ("Attic", False, None), ("Cellar", True, None)], answer
    assert [caller for _, caller, _ in listed(door.call("group_members", group_name="Roll Call")[1])] == \
        [True, False, False]
    rules.roll_call = users
    for caller in (door, attic, cellar):
        caller.close()


@check("rpc group_members: a share sets last_shared_at (not a retried or refused one); it outlives the row")
def rpc_group_members_last_shared(rules):
    door, attic, cellar = (rules.station(user) for user in rules.roll_call)
    attic.share("Roll Call", "roll-1")
    shared_at = count(rules, "select created_at from public.group_photos where photo_id = 'roll-1'")
    assert last_shared(rules, "Roll Call") == {"Door": None, "Attic": shared_at, "Cellar": None}
    assert listed(door.call("group_members", group_name="Roll Call")[1]) == \
        [("Door", True, None), ("Attic", False, shared_at), ("Cellar", False, None)]
    # The station's retry, which the REST API ignores (on_conflict=member_id,photo_id, ignore-duplicates),
    # and a second photo that day (the daily rule refuses it) leave it as it was.
    query, values = insert_photo("Roll Call", "roll-1", folder=rules.folder("Roll Call"))
    assert attic.run(query + sql.SQL(" on conflict (member_id, photo_id) do nothing"), values) == 0
    refused(lambda: attic.share("Roll Call", "roll-2"), "23505", "one_photo_per_member_per_day")
    assert last_shared(rules, "Roll Call")["Attic"] == shared_at
    # 49 hours on the cleanup deletes the row; the member's last share is still there.
    rules.admin.execute("update public.group_photos set taken_at = taken_at - interval '49 hours', "
                        "expires_at = expires_at - interval '49 hours' where photo_id = 'roll-1'")
    assert count(rules, "select public.snapstation_expire_photos()") >= 1
    assert count(rules, "select count(*) from public.group_photos where group_name = 'Roll Call'") == 0
    assert listed(door.call("group_members", group_name="Roll Call")[1])[1] == ("Attic", False, shared_at)
    # A row the admin deletes by hand is the same.
    cellar.share("Roll Call", "roll-3")
    cellar_at = count(rules, "select created_at from public.group_photos where photo_id = 'roll-3'")
    rules.admin.execute("delete from public.group_photos where photo_id = 'roll-3'")
    assert listed(attic.call("group_members", group_name="Roll Call")[1]) == \
        [("Door", False, None), ("Attic", True, shared_at), ("Cellar", False, cellar_at)]
    for caller in (door, attic, cellar):
        caller.close()


@check("rpc group_members: a non-member (of another group, or one who left) gets PT404; anon 42501; no user PT401")
def rpc_group_members_refusals(rules):
    outsider = rules.station(rules.new_user())
    assert CODE.fullmatch(outsider.call("create_group", group_name="Elsewhere", member_name="Shed")[1])
    for group in ("Roll Call", "No such group"):
        refused(lambda: outsider.call("group_members", group_name=group), "PT404",
                message=f"you are not a member of group {group}")
    assert listed(outsider.call("group_members", group_name="Elsewhere")[1]) == [("Shed", True, None)]
    # A member who left is an outsider too.
    leaver = rules.station(rules.roll_call[0])
    assert leaver.call("leave_group", group_name="Roll Call")[0] == 200
    refused(lambda: leaver.call("group_members", group_name="Roll Call"), "PT404",
            message="you are not a member of group Roll Call")
    anon = rules.station(None, role="anon")
    refused(lambda: anon.call("group_members", group_name="Roll Call"), "42501",
            message="permission denied for function group_members")
    service = rules.station(None, role="service_role")
    refused(lambda: service.call("group_members", group_name="Roll Call"), "PT401", message="sign in first")
    for caller in (outsider, leaver, anon, service):
        caller.close()


@check("schema: adds members.last_shared_at to an existing project, filled from the photo rows still there")
def schema_upgrades_last_shared(rules):
    database = DATABASE + "_upgrade_last_shared"
    rules.cluster.create_database(database)
    try:
        with rules.cluster.connect(database) as connection:
            connection.execute(groupdb.PRELUDE.read_text())
            connection.execute(groupdb.schema_without_schedule())
            # The previous version: no column, no trigger; a member who shared, one who did not.
            connection.execute("drop trigger note_last_share on public.group_photos;"
                               "drop function public.group_members(text);"
                               "alter table public.members drop column last_shared_at")
            sharer, quiet = uuid.uuid4(), uuid.uuid4()
            connection.execute("insert into auth.users (id) values (%s), (%s)", [sharer, quiet])
            connection.execute("insert into public.groups (name) values ('Old')")
            connection.execute("insert into public.members (group_id, user_id, name) select id, %s, 'Sharer' "
                               "from public.groups union all select id, %s, 'Quiet' from public.groups",
                               [sharer, quiet])
            connection.execute(*insert_row(photo_row("Old", "old-1", member_id=sharer, object_path="any/old-1.jpg")))
            connection.execute(groupdb.schema_without_schedule())
            filled = dict(connection.execute("select name, last_shared_at from public.members").fetchall())
            created = connection.execute("select created_at from public.group_photos").fetchone()[0]
        assert filled == {"Sharer": created, "Quiet": None}, (filled, created)
    finally:
        rules.cluster.drop_database(database)


@check("cleanup: snapstation_expire_photos() deletes the expired rows and only those")
def cleanup(rules):
    station = rules.station(rules.add_member("Sweepers", "Broom"))
    for hours_ago, photo, day in ((75, "gone-1", OTHER_DAY), (50, "gone-2", TODAY)):
        station.share("Sweepers", photo, day=day)
        age(rules, photo, hours=hours_ago)
    other = rules.station(rules.add_member("Sweepers", "Mop"))
    other.share("Sweepers", "kept")
    age(rules, "kept", hours=1)
    for caller in (station, other):
        caller.close()
    expired = count(rules, "select count(*) from public.group_photos where expires_at <= now()")
    unexpired = count(rules, "select count(*) from public.group_photos where expires_at > now()")
    assert expired >= 2
    assert count(rules, "select public.snapstation_expire_photos()") == expired
    assert count(rules, "select count(*) from public.group_photos where expires_at <= now()") == 0
    assert count(rules, "select count(*) from public.group_photos") == unexpired
    assert count(rules, "select count(*) from public.group_photos where photo_id = 'kept'") == 1


@check("schedule: the whole file (with the real pg_cron) loads twice into 'postgres'; one job every 15 minutes")
def schedule(rules):
    """The real pg_cron (postgresql-15-cron, preloaded by postgres.sh), installed as Supabase's docs do it;
    nothing of it is faked. What this cluster cannot show: here `postgres` is a superuser and owns `cron`,
    so the grants to it change nothing (on Supabase they let the non-superuser `postgres` use the jobs);
    the check only sees that they run and land in the ACLs."""
    with rules.cluster.connect("postgres") as connection:
        # A cluster that ran the previous schema.sql has pg_cron in `public` (its `create extension` named no
        # schema), and `create extension if not exists` leaves it there: start from none, as a new project.
        connection.execute("drop extension if exists pg_cron")
        for _ in range(2):
            connection.execute(groupdb.PRELUDE.read_text())
            connection.execute(groupdb.SCHEMA.read_text())
        schema = connection.execute("select extnamespace::regnamespace::text from pg_extension "
                                    "where extname = 'pg_cron'").fetchone()[0]
        assert schema == "pg_catalog", schema
        acl = connection.execute("select nspacl::text from pg_namespace where nspname = 'cron'").fetchone()[0]
        assert acl and "postgres=U" in acl, acl
        job_acl = connection.execute("select relacl::text from pg_class where oid = 'cron.job'::regclass").fetchone()[0]
        assert job_acl and "postgres=arwdDxt" in job_acl, job_acl
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
