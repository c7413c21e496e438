#!/usr/bin/env python3
"""Drives a Supabase project with Supabase's own Python client (`supabase` from PyPI, installed into
.build-bench/supabase-client by this script) as a station would use it: sign up, sign in, refresh with
rotation, Storage upload/download/remove in the `snapstation` bucket, an insert and a select on
`group_photos` (docs/supabase/schema.sql), groups made, joined, listed and left with `rpc()` (create_group,
join_group, group_invite, group_members, leave_group), expired access tokens, sign-out; and on the
stand-in, a second client made with the project's publishable key (sb_publishable_…, where the others use
the legacy anon JWT) that signs up, joins, signs in, selects and uploads as another member would.

    python3 Tests/Group/check_supabase_client.py

Against the stand-in (the default): starts `Tests/Group/standin --jwt-expiry 5` (its own PostgreSQL
cluster; nothing else needs to run), signs up a new user, which makes the group it shares in with
`rpc("create_group")`, as a station does. Expiries and the reuse interval are passed by moving the
stand-in's clock (POST /_control/clock), not by sleeping.

Against a real project: with SUPABASE_URL and SUPABASE_ANON_KEY (the anon or publishable key) in the
environment, and SNAPSTATION_TEST_EMAIL, SNAPSTATION_TEST_PASSWORD and SNAPSTATION_TEST_GROUP: a confirmed
user that is a member of that group (docs/supabase/checking.md). Sign-up is not tried there; the expired
token is checked only when the project's JWT expiry is 2 minutes or less; SUPABASE_REFRESH_TOKEN_REUSE_INTERVAL
(default 10) is the project's reuse interval.

Prints each check and ends with `N passed, N failed`; exits non-zero when one failed.
"""
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "Support"))
from pychecks import check, finish, in_venv  # noqa: E402  (Tests/Support/pychecks.py)

SUPABASE = "supabase==2.34.1"
STANDIN_JWT_EXPIRY = 5  # seconds: short enough to wait for, long enough for a few requests per token
POSTGREST_SKEW = 30  # PostgREST takes a token for 30 s past its exp (src/library/PostgREST/Auth/Jwt.hs)
CODE = re.compile(r"[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}")  # an invite code (schema.sql)


def have_supabase():
    try:
        import supabase  # noqa: F401
    except ImportError:
        return False
    return True


in_venv("supabase-client", [SUPABASE], have_supabase)

from postgrest.exceptions import APIError  # noqa: E402
from storage3.utils import StorageException  # noqa: E402
from supabase import ClientOptions, create_client  # noqa: E402
from supabase_auth.errors import AuthApiError  # noqa: E402
from supabase_auth.helpers import decode_jwt  # noqa: E402


class Target:
    """The project the checks run against: a real one from the environment, or the stand-in."""

    def __init__(self):
        self.process = None
        self.real = bool(os.environ.get("SUPABASE_URL") and os.environ.get("SUPABASE_ANON_KEY"))
        if self.real:
            needed = ("SNAPSTATION_TEST_EMAIL", "SNAPSTATION_TEST_PASSWORD", "SNAPSTATION_TEST_GROUP")
            missing = [name for name in needed if not os.environ.get(name)]
            if missing:
                raise SystemExit(f"against a real project these are needed too: {', '.join(missing)} "
                                 "(docs/supabase/checking.md)")
            self.url, self.key = os.environ["SUPABASE_URL"].rstrip("/"), os.environ["SUPABASE_ANON_KEY"]
            self.email, self.password = os.environ["SNAPSTATION_TEST_EMAIL"], os.environ["SNAPSTATION_TEST_PASSWORD"]
            self.group = os.environ["SNAPSTATION_TEST_GROUP"]
            self.reuse_interval = int(os.environ.get("SUPABASE_REFRESH_TOKEN_REUSE_INTERVAL", "10"))
            print(f"against the project at {self.url}")
            return
        self.process = subprocess.Popen([str(HERE / "standin"), "--jwt-expiry", str(STANDIN_JWT_EXPIRY)],
                                        stdout=subprocess.PIPE, text=True)
        values = {}
        while len(values) < 3:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit("Tests/Group/standin did not start")
            name, _, value = line.strip().partition("=")
            values[name] = value
        self.url, self.key = values["SUPABASE_URL"], values["SUPABASE_ANON_KEY"]
        self.publishable = values["SUPABASE_PUBLISHABLE_KEY"]
        self.email, self.password = f"python-{uuid.uuid4().hex[:10]}@example.org", "a station's password"
        self.group, self.reuse_interval = "Client Check", 10
        print(f"against the stand-in at {self.url} (Tests/Group/standin --jwt-expiry {STANDIN_JWT_EXPIRY})")

    def client(self, headers=None, key=None):
        """A client as an app makes one, with the project's key or `key`; no background refresh, so the
        checks decide when it refreshes."""
        options = ClientOptions(auto_refresh_token=False, persist_session=False, headers=headers or {})
        return create_client(self.url, key or self.key, options)

    def now(self):
        """The project's time in Unix seconds: the stand-in's clock (which moves when advanced), or this
        machine's against a real project."""
        return self.clock(0) if not self.real else time.time()

    def wait_until(self, moment):
        """Past `moment` of the project's time: the stand-in's clock is moved there (POST /_control/clock,
        no sleeping); a real project is waited for."""
        if self.real:
            time.sleep(max(0.0, moment - time.time()))
        else:
            self.clock(max(0.0, moment - self.now()))

    def clock(self, advance):
        request = urllib.request.Request(f"{self.url}/_control/clock", json.dumps({"advance": advance}).encode(),
                                         {"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)["now"]

    def close(self):
        if self.process:
            self.process.terminate()
            self.process.wait(timeout=60)


def refused(action):
    """The AuthApiError, APIError or StorageException that `action` raises."""
    try:
        action()
    except (AuthApiError, APIError, StorageException) as error:
        return error
    raise AssertionError("it was not refused")


def run(target):
    client = target.client()
    today = datetime.now(timezone.utc).date().isoformat()
    photo_id = f"py-{uuid.uuid4().hex[:12]}"
    name = None  # FOLDER/DAY/PHOTO.jpg, once the group's folder is read
    jpeg = b"\xff\xd8\xff\xe0" + os.urandom(4000) + b"\xff\xd9"
    state = {}

    if target.real:
        print("note: sign-up is not tried against a real project (its confirmation e-mail would go out)")
    else:
        with check("auth: sign_up answers a session (autoconfirm), the user is confirmed; it makes its group"):
            answer = client.auth.sign_up({"email": target.email, "password": target.password})
            assert answer.session and answer.user and answer.user.email == target.email, answer
            assert answer.user.email_confirmed_at is not None
            code = client.rpc("create_group", {"group_name": target.group, "member_name": "Python"}).execute().data
            assert CODE.fullmatch(code), code

    with check("auth: sign_in_with_password: a bearer session whose JWT names the user; a wrong password refused"):
        error = refused(lambda: client.auth.sign_in_with_password({"email": target.email, "password": "not it"}))
        assert isinstance(error, AuthApiError) and (error.status, error.code) == (400, "invalid_credentials"), error
        assert error.message == "Invalid login credentials", error.message
        answer = client.auth.sign_in_with_password({"email": target.email, "password": target.password})
        session = answer.session
        assert session.token_type == "bearer" and session.refresh_token and session.user.email == target.email.lower()
        assert abs(session.expires_at - (time.time() + session.expires_in)) <= 2, session
        if not target.real:
            assert session.expires_in in (STANDIN_JWT_EXPIRY - 1, STANDIN_JWT_EXPIRY), session.expires_in
        state.update(session=session)
        claims = decode_jwt(session.access_token)["payload"]
        assert claims["sub"] == session.user.id and claims["role"] == "authenticated", claims
        assert claims["exp"] == session.expires_at and claims.get("session_id"), claims

    with check("auth: get_user with the access token is the signed-in user"):
        user = client.auth.get_user(state["session"].access_token).user
        assert user.id == state["session"].user.id and user.email == target.email.lower()

    with check("rest: the member reads its group's folder (groups, select=folder, name=eq.GROUP)"):
        client.auth.refresh_session()  # a fresh token for the next few seconds
        rows = client.table("groups").select("folder").eq("name", target.group).execute().data
        assert len(rows) == 1 and re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                                               rows[0]["folder"]), rows
        state.update(folder=rows[0]["folder"])
        name = f"{rows[0]['folder']}/{today}/{photo_id}.jpg"

    with check("storage: upload into the group's folder (before its row: the row must name one's own object)"):
        client.auth.refresh_session()
        uploaded = client.storage.from_("snapstation").upload(name, jpeg, {"content-type": "image/jpeg",
                                                                          "upsert": "true"})
        assert uploaded.path == name, uploaded

    with check("rest: insert a group_photos row as the member, select it back with the server's member_name"):
        client.auth.refresh_session()
        taken = datetime.now(timezone.utc) - timedelta(minutes=1)
        row = {"group_name": target.group, "day": today, "photo_id": photo_id, "object_path": name,
               "byte_size": len(jpeg), "taken_at": taken.isoformat(),
               "expires_at": (taken + timedelta(hours=48)).isoformat()}
        try:
            inserted = client.table("group_photos").insert(row).execute().data
            assert inserted[0]["photo_id"] == photo_id and inserted[0]["member_name"], inserted
            # The server's time, not the one sent (a minute earlier).
            assert datetime.fromisoformat(inserted[0]["taken_at"]) > taken + timedelta(seconds=30), inserted
        except APIError as error:
            # A real project's member may have shared today already (an earlier run): the daily rule.
            assert target.real and error.code == "23505" and "one_photo_per_member_per_day" in error.message, error
            print("     note: the member had shared today already; the server's daily rule answered 409")
        rows = client.table("group_photos").select("photo_id,member_name,day").eq("group_name", target.group) \
            .eq("day", today).execute().data
        assert rows and all(r["day"] == today for r in rows), rows
        assert target.real or [r["photo_id"] for r in rows] == [photo_id], rows

    with check("storage: download the same bytes, remove, then 404"):
        client.auth.refresh_session()
        bucket = client.storage.from_("snapstation")
        assert bucket.download(name) == jpeg
        removed = bucket.remove([name])
        assert [item["name"] for item in removed] == [name], removed
        error = refused(lambda: bucket.download(name))
        assert str(error.status) in ("400", "404") and error.message == "Object not found", repr(error)

    if target.real:
        print("note: the publishable-key member is tried on the stand-in only (a real project's key: set "
              "SUPABASE_ANON_KEY to its sb_publishable_… key to run every check above with it)")
    else:
        with check("publishable key: a client with sb_publishable_… signs up, joins, signs in, selects, uploads"):
            member = target.client(key=target.publishable)
            assert target.publishable.startswith("sb_publishable_") and target.publishable != target.key
            # Alone the key is the anon role (the gateway's Bearer <anon JWT>): accepted, then refused by the rule.
            error = refused(lambda: member.rpc("create_group", {"group_name": "Anon", "member_name": "A"}).execute())
            assert error.code == "42501", repr(error)
            email = f"publishable-{uuid.uuid4().hex[:10]}@example.org"
            assert member.auth.sign_up({"email": email, "password": target.password}).session
            client.auth.refresh_session()
            code = client.rpc("group_invite", {"group_name": target.group}).execute().data
            joined = member.rpc("join_group", {"invite_code": code, "member_name": "Publishable"}).execute().data
            assert joined == target.group, joined
            session = member.auth.sign_in_with_password({"email": email, "password": target.password}).session
            claims = decode_jwt(session.access_token)["payload"]
            assert claims["role"] == "authenticated" and claims["email"] == email, claims
            rows = member.table("group_photos").select("photo_id,member_name").eq("group_name", target.group) \
                .eq("day", today).execute().data
            assert [(r["photo_id"], r["member_name"]) for r in rows] == [(photo_id, "Python")], rows
            folder = member.table("groups").select("folder").eq("name", target.group).execute().data
            assert folder == [{"folder": state["folder"]}], folder
            theirs = f"{state['folder']}/{today}/py-{uuid.uuid4().hex[:12]}.jpg"
            bucket = member.storage.from_("snapstation")
            assert bucket.upload(theirs, jpeg, {"content-type": "image/jpeg"}).path == theirs
            assert [item["name"] for item in bucket.remove([theirs])] == [theirs]
            # The group's members stay as the checks below expect them.
            assert member.rpc("leave_group", {"group_name": target.group}).execute().data == []

    with check("rpc: create_group answers an invite code; group_invite a new one; a wrong code refused (PT403)"):
        client.auth.refresh_session()
        group = f"Client RPC {uuid.uuid4().hex[:8]}"
        code = client.rpc("create_group", {"group_name": group, "member_name": "Python"}).execute().data
        assert CODE.fullmatch(code), code
        renewed = client.rpc("group_invite", {"group_name": group}).execute().data
        assert CODE.fullmatch(renewed) and renewed != code, renewed
        error = refused(lambda: client.rpc("join_group", {"invite_code": "ABCD-EFGH-JKLM", "member_name": "P"})
                        .execute())
        assert (error.code, error.message) == ("PT403", "this invite code is not valid"), repr(error)
        error = refused(lambda: client.rpc("create_group", {"group_name": group, "member_name": "P"}).execute())
        assert (error.code, error.message) == ("PT409", "this group name is taken: choose another"), repr(error)
        state.update(rpc_group=group, rpc_code=renewed, taken=(error.code, error.message, error.hint, error.details))

    if target.real:
        print("note: join_group by a second user is not tried against a real project (it needs a second user)")
    else:
        with check("rpc: a second user gets the same 409 for the taken name, and the folder only once it joins with "
                   "the code (any case); it sees the members; the replaced code is refused"):
            second = target.client()
            second.auth.sign_up({"email": f"python2-{uuid.uuid4().hex[:10]}@example.org", "password": target.password})
            # Not a member yet: the taken name answers as it did the member; the group's folder is not to be seen.
            error = refused(lambda: second.rpc("create_group", {"group_name": state["rpc_group"], "member_name": "S"})
                            .execute())
            assert (error.code, error.message, error.hint, error.details) == state["taken"], repr(error)
            assert second.table("groups").select("folder").eq("name", state["rpc_group"]).execute().data == []
            error = refused(lambda: second.rpc("join_group", {"invite_code": code, "member_name": "Second"}).execute())
            assert error.code == "PT403", repr(error)
            joined = second.rpc("join_group", {"invite_code": state["rpc_code"].lower(), "member_name": "Second"}) \
                .execute().data
            assert joined == state["rpc_group"], joined
            names = second.table("members").select("name").order("name").execute().data
            assert [row["name"] for row in names] == ["Python", "Second"], names
            folders = [second.table("groups").select("folder").eq("name", state["rpc_group"]).execute().data,
                       client.table("groups").select("folder").eq("name", state["rpc_group"]).execute().data]
            assert len(folders[0]) == 1 and folders[0] == folders[1], folders
            state.update(second=second)

    with check("rpc: group_members lists the members in join order, four keys each; the caller's share; PT404"):
        client.auth.refresh_session()
        keys = {"member_name", "joined_at", "last_shared_at", "is_caller"}
        # The photo group: the caller's row above set its last_shared_at (on a real project, maybe an
        # earlier run's row that day).
        members = client.rpc("group_members", {"group_name": target.group}).execute().data
        assert members and all(set(member) == keys for member in members), members
        joined = [datetime.fromisoformat(member["joined_at"]) for member in members]
        assert joined == sorted(joined), members
        mine = [member for member in members if member["is_caller"]]
        assert len(mine) == 1 and mine[0]["last_shared_at"], members
        if not target.real:
            assert [member["member_name"] for member in members] == ["Python"], members
            shared = datetime.fromisoformat(mine[0]["last_shared_at"])
            assert timedelta(0) <= datetime.now(timezone.utc) - shared < timedelta(minutes=5), shared
        # The RPC group: nobody has shared there.
        expected = [("Python", True)] + ([] if target.real else [("Second", False)])
        members = client.rpc("group_members", {"group_name": state["rpc_group"]}).execute().data
        assert [(m["member_name"], m["is_caller"], m["last_shared_at"]) for m in members] == \
            [(name, caller, None) for name, caller in expected], members
        second = state.pop("second", None)
        if second:
            second.auth.refresh_session()
            members = second.rpc("group_members", {"group_name": state["rpc_group"]}).execute().data
            assert [(m["member_name"], m["is_caller"]) for m in members] == [("Python", False), ("Second", True)], \
                members
            assert second.rpc("leave_group", {"group_name": state["rpc_group"]}).execute().data == []
            error = refused(lambda: second.rpc("group_members", {"group_name": state["rpc_group"]}).execute())
            assert (error.code, error.message) == ("PT404", f"you are not a member of group {state['rpc_group']}"), \
                repr(error)
        elsewhere = f"Not mine {uuid.uuid4().hex[:8]}"
        error = refused(lambda: client.rpc("group_members", {"group_name": elsewhere}).execute())
        assert (error.code, error.message) == ("PT404", f"you are not a member of group {elsewhere}"), repr(error)
        error = refused(lambda: target.client().rpc("group_members", {"group_name": target.group}).execute())
        assert error.code == "42501", repr(error)

    with check("rpc: leave_group; the last member leaving takes the group; leaving again is refused (PT404)"):
        client.auth.refresh_session()
        assert client.rpc("leave_group", {"group_name": state["rpc_group"]}).execute().data == []
        error = refused(lambda: client.rpc("leave_group", {"group_name": state["rpc_group"]}).execute())
        assert (error.code, error.message) == ("PT404", f"you are not a member of group {state['rpc_group']}"), \
            repr(error)
        anonymous = target.client()
        error = refused(lambda: anonymous.rpc("create_group", {"group_name": "Anon", "member_name": "A"}).execute())
        assert error.code == "42501", repr(error)

    with check("refresh: refresh_session rotates the refresh token; the used one again answers the same new one"):
        first = client.auth.sign_in_with_password({"email": target.email, "password": target.password}) \
            .session.refresh_token
        second = client.auth.refresh_session(first).session
        state["first_revoked"] = target.now()
        assert second.refresh_token != first and second.user.id == state["session"].user.id
        again = client.auth.refresh_session(first).session
        assert again.refresh_token == second.refresh_token, "the parent of the active token answers that token"
        third = client.auth.refresh_session(second.refresh_token).session
        assert third.refresh_token not in (first, second.refresh_token)
        assert client.table("group_photos").select("photo_id").limit(1).execute().data is not None
        state.update(first=first, third=third)

    with check(f"refresh: {target.reuse_interval} s on, the first token is refused (Already Used), then its session"):
        target.wait_until(state["first_revoked"] + target.reuse_interval + 1.5)
        error = refused(lambda: client.auth.refresh_session(state["first"]))
        assert (error.status, error.code) == (400, "refresh_token_already_used"), (error.status, error.code)
        assert error.message == "Invalid Refresh Token: Already Used", error.message
        target.wait_until(target.now() + target.reuse_interval + 1.5)
        error = refused(lambda: client.auth.refresh_session(state["third"].refresh_token))
        # The stand-in (Auth's default refresh tokens) revokes the session's tokens; newer ones end the session.
        assert error.status == 400 and error.code in ("refresh_token_already_used", "refresh_token_not_found"), error

    expires_at = state["session"].expires_at
    if state["session"].expires_in > 120:
        print(f"note: the expired-token check needs a JWT expiry of 2 minutes or less "
              f"(this project's: {state['session'].expires_in} s)")
    else:
        with check("expiry: an expired token: PostgREST 401 PGRST303 'JWT expired', Storage 403 exp check failed"):
            stale = target.client({"Authorization": f"Bearer {state['session'].access_token}"})
            target.wait_until(expires_at + 1)
            error = refused(lambda: stale.storage.from_("snapstation").download(name))
            assert (str(error.status), error.message) == ("403", '"exp" claim timestamp check failed'), repr(error)
            target.wait_until(expires_at + POSTGREST_SKEW + 2)
            error = refused(lambda: stale.table("group_photos").select("photo_id").execute())
            assert (error.code, error.message) == ("PGRST303", "JWT expired"), repr(error)

    with check("sign_out: the session ends; its refresh token is refused afterwards"):
        session = client.auth.sign_in_with_password({"email": target.email, "password": target.password}).session
        client.auth.sign_out()
        assert client.auth.get_session() is None
        error = refused(lambda: client.auth.refresh_session(session.refresh_token))
        assert (error.status, error.code) == (400, "refresh_token_not_found"), (error.status, error.code)


def main():
    began = time.monotonic()
    target = None
    with check("the project answers (the stand-in starts, or the real project's URL and key are set)"):
        target = Target()
    if target:
        try:
            run(target)
        finally:
            target.close()
    print(f"supabase client checks took {time.monotonic() - began:.1f}s")
    finish()


if __name__ == "__main__":
    main()
