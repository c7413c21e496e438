"""The Supabase stand-in: a fresh PostgreSQL database per fake, the project's keys, the API gateway in
front of the services, and the control routes the tests use. The Auth, REST and Storage routes are in
auth_api.py, postgrest.py and storage_api.py; REST and Storage run every request in the database as the
caller (role and JWT claims), so the schema's constraints, triggers and row-level security answer, not
this code; Auth keeps its users, sessions and refresh tokens in the same database's `auth` schema, so
`auth.uid()` sees the users it signs in.
"""
import json
import os
import secrets
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qsl

# Tests/Group/groupdb.py (the cluster, its template database, and the driver), for this module's callers,
# postgrest.py and storage_api.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Group"))

import jwt_hs256  # noqa: E402
from reply import Reply  # noqa: E402

# The project's JWT secret. Tests never need it: they sign up and sign in through Auth like any client.
TEST_JWT_SECRET = "snapstation-fake-jwt-secret-with-at-least-32-characters"
# The legacy anon key's times: fixed, so the key is stable.
ISSUED_AT, EXPIRES_AT = 1_767_225_600, 4_102_444_800  # 2026-01-01 and 2100-01-01
# Auth's default access-token lifetime (supabase/auth internal/conf/configuration.go: JWT.Exp 0 -> 3600) and
# the refresh-token reuse interval projects start with (10 s: supabase/cli pkg/config/templates/config.toml,
# refresh_token_reuse_interval; Auth's own zero value, with GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL
# unset, would be 0).
JWT_EXPIRY, REUSE_INTERVAL = 3600, 10


class Refusal(Exception):
    """The API gateway refused the request before it reached a service."""

    def __init__(self, reply):
        super().__init__(reply.body)
        self.reply = reply


class SupabaseStandIn:
    def __init__(self, cluster, secret=TEST_JWT_SECRET, jwt_expiry=JWT_EXPIRY, reuse_interval=REUSE_INTERVAL,
                 autoconfirm=True):
        import auth_api  # here: it imports this module's Refusal
        self.cluster = cluster
        self.secret = secret
        self.jwt_expiry, self.reuse_interval, self.autoconfirm = jwt_expiry, reuse_interval, autoconfirm
        # The services' clock, which a test holds and moves (POST /_control/clock) instead of sleeping: the
        # time each token is issued at and checked against (Auth's iat and exp, its refresh tokens'
        # revocations and reuse interval, PostgREST's and Storage's expiry checks). The database's own now()
        # (rows, bans, sessions) does not move. `held`: the time it stands at, or None while it runs.
        self.clock_offset, self.held = 0.0, None
        self.database = f"snapstation_fake_{os.getpid()}"
        self.anon_key = jwt_hs256.sign({"iss": "supabase", "ref": "snapstation-fake", "role": "anon",
                                        "iat": ISSUED_AT, "exp": EXPIRES_AT}, secret)
        # The project owner's legacy key: the same kind of JWT with the service_role role, which bypasses
        # row-level security and is one of Auth's admin roles (its admin API). Only in memory and on
        # GET /_control/keys, as a dashboard shows it; stations never get it.
        self.service_role_key = jwt_hs256.sign({"iss": "supabase", "ref": "snapstation-fake", "role": "service_role",
                                                "iat": ISSUED_AT, "exp": EXPIRES_AT}, secret)
        # The newer kind of keys (docs: "API keys"): opaque, made anew at each start; the gateway turns the
        # publishable one into the anon role's JWT and the secret one into the service_role's.
        self.publishable_key = "sb_publishable_" + secrets.token_urlsafe(24).replace("-", "x").replace("_", "y")
        self.secret_key = "sb_secret_" + secrets.token_urlsafe(24).replace("-", "x").replace("_", "y")
        self.issuer = "http://127.0.0.1/auth/v1"  # fake_services.py sets the real address once it listens
        drop_stale_databases(cluster)
        cluster.create_database(self.database, cluster.template())
        self.auth = auth_api.AuthAPI(self)

    def close(self):
        self.cluster.drop_database(self.database)

    # -- the API gateway ----------------------------------------------------------------------------------

    def gateway(self, service, headers, query=""):
        """What the gateway does before `service` ("auth", "rest" or "storage") sees the request, as the
        self-hosted Kong has it (supabase/supabase docker/volumes/api/kong.yml and kong-entrypoint.sh):
        key-auth on auth-v1 and rest-v1 only (storage-v1 has none: S3 requests carry no apikey), the key
        read from the `apikey` header or url parameter and held to the project's keys, the anon consumer's
        (anon, publishable) and the service_role consumer's (service_role, secret) (Refusal); then
        LUA_AUTH_EXPR: an Authorization header that is not an sb_ key passes as it is, else the secret key
        in the `apikey` header becomes `Bearer <service_role JWT>` and the publishable key
        `Bearer <anon JWT>`, else that header itself (a legacy key, no `Bearer`).
        Answers the Authorization header the service receives, or None."""
        apikey = headers.get("apikey")
        if service in ("auth", "rest"):
            apikey = apikey or dict(parse_qsl(query or "")).get("apikey")
            if not apikey:
                raise Refusal(Reply(401, {"message": "No API key found in request",
                                          "hint": "No `apikey` request header or url param was found."}))
            if apikey not in (self.anon_key, self.publishable_key, self.service_role_key, self.secret_key):
                raise Refusal(Reply(401, {"message": "Invalid API key",
                                          "hint": "Double check your Supabase `anon` or `service_role` API key."}))
        authorization = headers.get("Authorization")
        if authorization and not authorization.startswith("Bearer sb_"):
            return authorization
        header_key = headers.get("apikey")
        if header_key is not None and header_key == self.secret_key:
            return f"Bearer {self.service_role_key}"
        if header_key is not None and header_key == self.publishable_key:
            return f"Bearer {self.anon_key}"
        return header_key or None

    def now(self):
        """The services' time in Unix seconds: where a test holds it, else the machine's moved on by what
        the tests advanced."""
        return self.held if self.held is not None else time.time() + self.clock_offset

    def auth_ok(self, service, headers, query=""):
        """Whether the gateway lets the request through and its token verifies now (for /_requests)."""
        try:
            token = bearer(self.gateway(service, headers, query))
            if token:
                jwt_hs256.verify(token, self.secret, now=self.now())
            return True
        except (Refusal, jwt_hs256.JWTError):
            return False

    # -- database sessions --------------------------------------------------------------------------------

    @contextmanager
    def as_caller(self, claims, method, path, storage_api=False, read_only=False):
        """A transaction as PostgREST and the Storage API run one: logged in as `authenticator`, switched
        to the role of the caller's JWT, with its claims where auth.uid() and auth.jwt() read them. The
        Storage API also sets `storage.allow_delete_query`, which its protect_delete trigger wants before
        any delete of storage.objects (supabase/storage src/internal/database/postgres/scope.ts).
        `read_only`: PostgREST's read-only transaction (GET, and calls of stable or immutable functions)."""
        with self.cluster.connect(self.database, user="authenticator") as connection:
            with connection.transaction():
                if read_only:
                    connection.execute("set transaction read only")
                connection.execute(
                    "select set_config('role', %s, true), set_config('request.jwt.claims', %s, true), "
                    "set_config('request.method', %s, true), set_config('request.path', %s, true), "
                    "set_config('storage.allow_delete_query', %s, true)",
                    [claims.get("role") or "anon", json.dumps(claims), method, path,
                     "true" if storage_api else "false"])
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
        routes = {("POST", "age"): self.age, ("POST", "clock"): self.clock, ("POST", "expire"): self.expire,
                  ("GET", "objects"): self.objects,
                  ("GET", "rows"): self.rows, ("GET", "keys"): self.keys, ("POST", "older_schema"): self.older_schema}
        if (method, route) == ("POST", "reset"):
            return self.reset(storage)
        handler = routes.get((method, route))
        if handler is None:
            return None
        try:
            return handler(json.loads(body or b"{}"))
        except (ValueError, KeyError, TypeError) as error:
            return Reply(400, {"message": f"bad request: {error}"})

    def keys(self, _request):
        """The project's keys and settings, as its dashboard shows them: the public ones (what
        `Tests/Group/standin` prints) and the owner's (service_role, secret: Auth's admin API)."""
        return Reply(200, {"anon_key": self.anon_key, "publishable_key": self.publishable_key,
                           "service_role_key": self.service_role_key, "secret_key": self.secret_key,
                           "jwt_expiry": self.jwt_expiry, "refresh_token_reuse_interval": self.reuse_interval,
                           "autoconfirm": self.autoconfirm})

    def clock(self, request):
        """{"hold": true}: the services' clock stops where it is, and moves only when advanced; {"hold":
        false}: it runs again from there. {"advance": S}: it moves S seconds on (S >= 0: time does not go
        back). Both may come in one request, hold first. Answers {"now": T, "held": bool}, the services'
        time in Unix seconds."""
        seconds = float(request.get("advance", 0))
        if not seconds >= 0:
            raise ValueError("advance must be a number of seconds, 0 or more")
        if "hold" in request:
            if request["hold"] is True and self.held is None:
                self.held = self.now()
            elif request["hold"] is False and self.held is not None:
                self.clock_offset, self.held = self.held - time.time(), None
        if self.held is not None:
            self.held += seconds
        else:
            self.clock_offset += seconds
        return Reply(200, {"now": self.now(), "held": self.held is not None})

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

    def older_schema(self, request):
        """{"copy_of": PHOTO_ID, "photo_ids": [...]}: the project as a schema.sql from before photo ids were
        checked left it (no photo_id_is_a_plain_name), and rows a member could then insert: copies of the
        member's row PHOTO_ID (its group, object and member) under each id, a day apart so that the daily
        rule holds. What a station must survive from an older project, or a server that lies."""
        with self.as_admin() as connection:
            connection.execute("alter table public.group_photos drop constraint if exists photo_id_is_a_plain_name")
            for offset, photo_id in enumerate(request["photo_ids"], start=1):
                connection.execute(
                    "insert into public.group_photos (group_name, member_id, day, photo_id, object_path, byte_size, "
                    "taken_at, expires_at) select group_name, member_id, day - %s, %s, object_path, byte_size, "
                    "taken_at, expires_at from public.group_photos where photo_id = %s",
                    [offset, photo_id, request["copy_of"]])
        return Reply(200, {"rows": len(request["photo_ids"])})

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
        self.clock_offset, self.held = 0.0, None
        with self.as_admin() as connection:
            connection.execute("truncate public.group_photos, public.members, public.group_invites, public.groups, "
                               "public.invite_attempts, auth.mfa_amr_claims, "
                               "auth.refresh_tokens, auth.sessions, auth.identities, auth.users, storage.objects")
        storage.forget_all()
        return None  # the fake also clears its faults and requests, and answers


def bearer(authorization):
    """The token of an Authorization header as PostgREST reads it (wai-extra's extractBearerAuth: the
    word `Bearer` in any case, then the rest), or None."""
    scheme, _, rest = (authorization or "").strip().partition(" ")
    return rest.strip() if scheme.lower() == "bearer" else None


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
