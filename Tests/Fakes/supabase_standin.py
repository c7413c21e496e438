"""The Supabase stand-in: a fresh PostgreSQL database per fake, the project's keys, the API gateway's key
check, and the control routes the tests use. The REST and Storage routes are in postgrest.py and
storage_api.py; both run every request in the database as the caller (role and JWT claims), so the
schema's constraints, triggers and row-level security answer, not this code.
"""
import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path

# Tests/Group/groupdb.py: the cluster, its template database, and the driver.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Group"))
from groupdb import psycopg  # noqa: E402

import jwt_hs256  # noqa: E402
from reply import Reply  # noqa: E402

# The project's JWT secret. Tests never need it: /_control/member hands out signed keys.
TEST_JWT_SECRET = "snapstation-fake-jwt-secret-with-at-least-32-characters"
ISSUED_AT, EXPIRES_AT = 1_767_225_600, 4_102_444_800  # 2026-01-01 and 2100-01-01: fixed, so keys are stable


class Refusal(Exception):
    """The API gateway refused the request before it reached a service."""

    def __init__(self, reply):
        super().__init__(reply.body)
        self.reply = reply


class SupabaseStandIn:
    def __init__(self, cluster, secret=TEST_JWT_SECRET):
        self.cluster = cluster
        self.secret = secret
        self.database = f"snapstation_fake_{os.getpid()}"
        self.anon_key = jwt_hs256.sign({"iss": "supabase", "ref": "snapstation-fake", "role": "anon",
                                        "iat": ISSUED_AT, "exp": EXPIRES_AT}, secret)
        drop_stale_databases(cluster)
        cluster.create_database(self.database, cluster.template())

    def close(self):
        self.cluster.drop_database(self.database)

    # -- who is calling ---------------------------------------------------------------------------------

    def claims(self, headers):
        """The caller's JWT claims. The gateway first wants the project's key in `apikey` (Refusal);
        without an Authorization header the key itself is the bearer (the anon role). A bearer token that
        does not verify raises jwt_hs256.JWTError, which each service answers in its own way."""
        apikey = headers.get("apikey")
        if not apikey:
            raise Refusal(Reply(401, {"message": "No API key found in request",
                                      "hint": "No `apikey` request header or url param was found."}))
        if apikey != self.anon_key:
            raise Refusal(Reply(401, {"message": "Invalid API key",
                                      "hint": "Double check your Supabase `anon` or `service_role` API key."}))
        return jwt_hs256.verify(bearer(headers) or apikey, self.secret)

    def auth_ok(self, headers):
        """Whether the request's key and token are this project's (for /_requests)."""
        try:
            self.claims(headers)
            return True
        except (Refusal, jwt_hs256.JWTError):
            return False

    def member_key(self, user_id):
        return jwt_hs256.sign({"iss": "snapstation-fake/auth/v1", "sub": str(user_id), "aud": "authenticated",
                               "role": "authenticated", "iat": ISSUED_AT, "exp": EXPIRES_AT,
                               "is_anonymous": False}, self.secret)

    # -- database sessions --------------------------------------------------------------------------------

    @contextmanager
    def as_caller(self, claims, method, path):
        """A transaction as PostgREST and the Storage API run one: logged in as `authenticator`, switched
        to the role of the caller's JWT, with its claims where auth.uid() and auth.jwt() read them."""
        with self.cluster.connect(self.database, user="authenticator") as connection:
            with connection.transaction():
                connection.execute(
                    "select set_config('role', %s, true), set_config('request.jwt.claims', %s, true), "
                    "set_config('request.method', %s, true), set_config('request.path', %s, true)",
                    [claims.get("role") or "anon", json.dumps(claims), method, path])
                yield connection

    @contextmanager
    def as_admin(self):
        """A transaction as the project's owner (the SQL editor): no row-level security."""
        with self.cluster.connect(self.database) as connection:
            with connection.transaction():
                yield connection

    # -- control routes (no auth: the tests' side door) ---------------------------------------------------

    def control(self, method, route, body, storage):
        """Answers /_control/<route>, or None when the route is not the stand-in's."""
        routes = {("POST", "member"): self.add_member, ("POST", "age"): self.age,
                  ("POST", "expire"): self.expire, ("GET", "objects"): self.objects, ("GET", "rows"): self.rows}
        if (method, route) == ("POST", "reset"):
            return self.reset(storage)
        handler = routes.get((method, route))
        if handler is None:
            return None
        try:
            return handler(json.loads(body or b"{}"))
        except (ValueError, KeyError, TypeError) as error:
            return Reply(400, {"message": f"bad request: {error}"})

    def add_member(self, request):
        """{"group", "name"[, "user_id"]}: adds a station (a new user, or `user_id` again) to a group,
        creating the group when needed; answers the station's key."""
        group, name, user = str(request["group"]), str(request["name"]), request.get("user_id")
        try:
            with self.as_admin() as connection:
                connection.execute("insert into public.groups (name) values (%s) on conflict (name) do nothing",
                                   [group])
                if user is None:
                    user = connection.execute("insert into auth.users (id) values (gen_random_uuid()) "
                                              "returning id").fetchone()[0]
                connection.execute("insert into public.members (group_id, user_id, name) "
                                   "select id, %s, %s from public.groups where name = %s", [user, name, group])
        except psycopg.Error as error:
            full = "already has 12 members" in str(error) or error.sqlstate == "23505"
            return Reply(409 if full else 400, {"code": error.sqlstate, "message": error.diag.message_primary})
        return Reply(200, {"key": self.member_key(user), "anon_key": self.anon_key, "user_id": str(user),
                           "group": group, "name": name})

    def age(self, request):
        """{"hours": H}: everything happened H hours earlier. Rows move their days back by H/24 rounded,
        earliest first, so no member ever has two photos on one day on the way."""
        hours = float(request["hours"])
        with self.as_admin() as connection:
            ids = [i for (i,) in connection.execute("select id from public.group_photos order by day, id")]
            for photo in ids:
                connection.execute(
                    "update public.group_photos set taken_at = taken_at - make_interval(secs => %s), "
                    "expires_at = expires_at - make_interval(secs => %s), "
                    "created_at = created_at - make_interval(secs => %s), day = day - round(%s / 24.0)::int "
                    "where id = %s", [hours * 3600] * 3 + [hours, photo])
            objects = connection.execute(
                "update storage.objects set created_at = created_at - make_interval(secs => %s), "
                "updated_at = updated_at - make_interval(secs => %s), "
                "last_accessed_at = last_accessed_at - make_interval(secs => %s)", [hours * 3600] * 3).rowcount
        return Reply(200, {"rows": len(ids), "objects": objects})

    def expire(self, _request):
        with self.as_admin() as connection:
            deleted = connection.execute("select public.snapstation_expire_photos()").fetchone()[0]
        return Reply(200, {"deleted": deleted})

    def objects(self, _request):
        with self.as_admin() as connection:
            names = [n for (n,) in connection.execute("select name from storage.objects order by name")]
        return Reply(200, names)

    def rows(self, _request):
        with self.as_admin() as connection:
            text = connection.execute("select coalesce(json_agg(r order by r.id), '[]')::text "
                                      "from public.group_photos r").fetchone()[0]
        return Reply(200, text.encode())

    def reset(self, storage):
        with self.as_admin() as connection:
            connection.execute("truncate public.group_photos, public.members, public.groups, auth.users, "
                               "storage.objects")
        storage.forget_all()
        return None  # the fake also clears its faults and requests, and answers


def bearer(headers):
    value = headers.get("Authorization") or ""
    return value[7:].strip() if value.lower().startswith("bearer ") else None


def drop_stale_databases(cluster):
    """Drops the databases of fakes that died without cleaning up (killed, or the machine stopped)."""
    with cluster.connect() as admin:
        names = [n for (n,) in admin.execute("select datname from pg_database where datname like 'snapstation_fake_%'")]
    for name in names:
        pid = name.rsplit("_", 1)[-1]
        if pid.isdigit() and not process_alive(int(pid)):
            cluster.drop_database(name)


def process_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
