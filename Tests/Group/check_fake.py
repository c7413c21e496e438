#!/usr/bin/env python3
"""Checks the Supabase stand-in (Tests/Fakes/fake_services.py --postgres) end to end over HTTP, the way
the station calls it: members that sign up and make or join their groups through the public API
(Tests/Support/supabase_members.py), uploads, row inserts, reads, ranged downloads, bulk deletes, and the
48-hour expiry; groups made, joined and left through /rest/v1/rpc; what a hostile member tries (photo ids
that are paths, times and days of its choosing, a freed group name); then Auth and the gateway: sign-up and
sign-in, the API keys on /auth and /rest but not /storage, expired access tokens as each service answers
them (a token that expired honestly, on a fake with --jwt-expiry 2), refresh-token rotation and reuse,
and sign-out; and Auth's admin API as a project owner uses it: a member disabled with the service_role key
(ban_duration) and enabled again.

    Tests/Group/postgres.sh start && python3 Tests/Group/check_fake.py

Prints each check with its time and `fake: N passed, M failed`; exits non-zero on any failure.
"""
import base64
import http.client
import json
import os
import re
import subprocess
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone
from urllib.parse import quote, urlencode

import groupdb

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
from pychecks import check, finish  # noqa: E402  (Tests/Support/pychecks.py)
from supabase_members import Refused, sign_up_member  # noqa: E402  (Tests/Support/supabase_members.py)

FAKE = groupdb.ROOT / "Tests/Fakes/fake_services.py"
GROUP = "Family & Friends"  # a name that needs URL encoding, as real ones do
NOW = datetime.now(timezone.utc)
DAY = NOW.date().isoformat()
POSTGREST_SKEW = 30  # PostgREST takes a token for 30 s past its exp (src/library/PostgREST/Auth/Jwt.hs)


class Fake:
    """A running fake_services.py; stops when closed (its stdin closes, as the Swift tests do it)."""

    def __init__(self, *arguments):
        self.process = subprocess.Popen([sys.executable, str(FAKE), *arguments], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        assert line.startswith("PORT "), f"the fake did not start: {line!r}"
        self.port = int(line.split()[1])
        self.url = f"http://127.0.0.1:{self.port}"

    def call(self, method, path, body=None, headers=None):
        """(status, headers, body bytes); a dict body is sent as JSON."""
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            headers = {"Content-Type": "application/json", **(headers or {})}
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def json(self, method, path, body=None, headers=None):
        status, _, data = self.call(method, path, body, headers)
        return status, (json.loads(data) if data else None)

    def advance(self, seconds):
        """Moves the services' clock `seconds` on (POST /_control/clock) and answers its time: how a check
        gets past an expiry or an interval without sleeping through it."""
        status, answer = self.json("POST", "/_control/clock", {"advance": max(0.0, seconds)})
        assert status == 200, (status, answer)
        return answer["now"]

    def hold(self, held=True):
        """Stops the services' clock (or lets it run again); answers its time."""
        status, answer = self.json("POST", "/_control/clock", {"hold": held})
        assert status == 200, (status, answer)
        return answer["now"]

    def advance_past(self, moment):
        """Moves the services' clock just past `moment` (Unix seconds), if it is not there yet."""
        return self.advance(moment + 0.1 - self.advance(0))

    def anon_key(self):
        """The project's public key, as its dashboard shows it."""
        status, keys = self.json("GET", "/_control/keys")
        assert status == 200, (status, keys)
        return keys["anon_key"]

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


class Station:
    """A new user that signed up and made `group` or joined it with a code `inviter` (an earlier Station)
    asked for, as member `name`; and the calls the station makes with its keys."""

    def __init__(self, fake, group, name, inviter=None):
        member = sign_up_member(fake.url, fake.anon_key(), group, name, inviter and inviter.token)
        self.fake, self.user_id, self.token = fake, member["user_id"], member["access_token"]
        self.headers = {"apikey": member["anon_key"], "Authorization": f"Bearer {self.token}"}

    def upload(self, name, data, upsert=True, content_type="image/jpeg"):
        headers = {**self.headers, "Content-Type": content_type, "x-upsert": "true" if upsert else "false"}
        return self.fake.json("POST", f"/storage/v1/object/snapstation/{quote(name)}", data, headers)

    def download(self, name, byte_range=None):
        headers = {**self.headers, **({"Range": byte_range} if byte_range else {})}
        return self.fake.call("GET", f"/storage/v1/object/authenticated/snapstation/{quote(name)}", None, headers)

    def delete(self, names):
        return self.fake.json("DELETE", "/storage/v1/object/snapstation", {"prefixes": names}, self.headers)

    def insert(self, row, prefer="return=minimal", query=""):
        return self.fake.call("POST", f"/rest/v1/group_photos{query}", json.dumps(row).encode(),
                              {**self.headers, "Content-Type": "application/json", "Prefer": prefer})

    def select(self, query):
        return self.fake.json("GET", f"/rest/v1/group_photos?{query}", None, self.headers)

    def folder(self, group):
        """The group's folder in the bucket, as the station reads it (a member sees its group's row), or
        None when the caller sees no such group."""
        status, rows = self.fake.json("GET", f"/rest/v1/groups?select=folder&name=eq.{quote(group)}", None,
                                      self.headers)
        assert status == 200 and len(rows) <= 1, (status, rows)
        return rows[0]["folder"] if rows else None

    def rpc(self, name, arguments=None, method="POST", body=None):
        """(status, headers, answer) of /rest/v1/rpc/NAME: the arguments as the JSON body, or for GET in the
        query string."""
        path = f"/rest/v1/rpc/{name}"
        if method == "GET":
            path += "?" + urlencode(arguments or {})
        elif body is None:
            body = json.dumps(arguments or {}).encode()
        status, headers, data = self.fake.call(method, path, body, {**self.headers, "Content-Type": "application/json"})
        return status, headers, (json.loads(data) if data else None)


def photo_row(photo_id, folder, group=GROUP, day=DAY, size=None):
    """A station's row; its object is FOLDER/DAY/PHOTO.jpg, FOLDER the group's folder (Station.folder)."""
    taken = NOW - timedelta(minutes=2)
    return {"group_name": group, "day": day, "photo_id": photo_id, "object_path": f"{folder}/{day}/{photo_id}.jpg",
            "byte_size": size, "taken_at": taken.isoformat(), "expires_at": (taken + timedelta(hours=48)).isoformat()}


def jpeg(size):
    return b"\xff\xd8" + os.urandom(size - 2)


def error_of(answer):
    """Storage's errors come as HTTP 400 with the real status in the body."""
    status, body = answer
    return status, body.get("statusCode"), body.get("message")


def run(fake):
    photo = jpeg(120_000)

    with check("members: sign up, make or join with a code the first asks for; the 13th join is refused with 409"):
        kitchen = Station(fake, GROUP, "Kitchen")
        hall = Station(fake, GROUP, "Hall", inviter=kitchen)
        garage = Station(fake, "Climbers", "Garage")
        for index in range(10):
            Station(fake, GROUP, f"Room {index}", inviter=kitchen)
        try:
            Station(fake, GROUP, "Thirteenth", inviter=kitchen)
            raise AssertionError("the 13th member joined")
        except Refused as refusal:
            assert (refusal.path, refusal.status, refusal.answer["code"]) == \
                ("/rest/v1/rpc/join_group", 409, "PT409"), refusal
            assert refusal.answer["message"] == f"group {GROUP} already has 12 members", refusal

    with check("rest: a member reads its group's folder (groups?select=folder&name=eq.NAME); others get []; anon 401"):
        family, climbers = kitchen.folder(GROUP), garage.folder("Climbers")
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", family), family
        assert hall.folder(GROUP) == family and climbers not in (None, family), (family, climbers)
        assert garage.folder(GROUP) is None and kitchen.folder("Climbers") is None
        status, answer = fake.json("GET", f"/rest/v1/groups?select=folder&name=eq.{quote(GROUP)}", None,
                                   {"apikey": kitchen.headers["apikey"]})
        assert (status, answer["code"]) == (401, "42501"), (status, answer)
        path = f"{family}/{DAY}/p1.jpg"

    with check("storage: upload (x-upsert) answers the Key; again rewrites; without upsert 409; elsewhere 403"):
        status, answer = kitchen.upload(path, photo)
        assert status == 200 and answer["Key"] == f"snapstation/{path}" and answer["Id"], (status, answer)
        assert kitchen.upload(path, photo)[0] == 200
        assert error_of(kitchen.upload(path, photo, upsert=False))[:2] == (400, "409")
        assert error_of(garage.upload(f"{family}/{DAY}/g.jpg", photo)) == \
            (400, "403", "new row violates row-level security policy")
        assert error_of(hall.upload(path, photo))[:2] == (400, "403"), "rewrote another member's object"
        assert error_of(kitchen.upload(f"{GROUP}/{DAY}/by-name.jpg", photo))[:2] == (400, "403"), "under the name"
        assert error_of(kitchen.upload(f"{family}/{DAY}/big.jpg", jpeg(21 * 1024 * 1024)))[:2] == (400, "413")
        assert error_of(kitchen.upload(f"{family}/{DAY}/x.gif", photo, content_type="image/gif"))[:2] == (400, "415")

    with check("rest: insert answers 201 with no body; a retry 409 one_row_per_photo; a 2nd photo 409 daily rule"):
        status, _, body = kitchen.insert(photo_row("p1", family, size=len(photo)))
        assert (status, body) == (201, b""), (status, body)
        status, _, body = kitchen.insert(photo_row("p1", family))
        answer = json.loads(body)
        assert status == 409 and answer["code"] == "23505" and "one_row_per_photo" in answer["message"], answer
        assert kitchen.upload(f"{family}/{DAY}/p2.jpg", photo)[0] == 200
        status, _, body = kitchen.insert(photo_row("p2", family))
        answer = json.loads(body)
        assert status == 409 and "one_photo_per_member_per_day" in answer["message"], (status, answer)
        assert kitchen.delete([f"{family}/{DAY}/p2.jpg"])[0] == 200
        status, _, _ = kitchen.insert(photo_row("p1", family), "return=minimal,resolution=ignore-duplicates",
                                      "?on_conflict=member_id,photo_id")
        assert status == 201, "a retry that ignores its own duplicate"
        # photo_id is unique per member now: on_conflict=photo_id names no unique constraint, and PostgREST
        # answers PostgreSQL's 42P10 with 400.
        status, _, body = kitchen.insert(photo_row("p1", family), "return=minimal,resolution=ignore-duplicates",
                                         "?on_conflict=photo_id")
        answer = json.loads(body)
        assert status == 400 and answer["code"] == "42P10", (status, answer)
        assert "no unique or exclusion constraint matching the ON CONFLICT" in answer["message"], answer

    with check("rest: a row must name the caller's own object (403 otherwise); photo ids are each member's"):
        status, _, body = hall.insert(photo_row("h1", family) | {"object_path": path})  # kitchen's p1.jpg
        assert status == 403 and json.loads(body)["code"] == "42501", (status, body)
        status, _, body = hall.insert(photo_row("not-uploaded", family))
        assert status == 403 and json.loads(body)["code"] == "42501", (status, body)
        # Kitchen's photo id again, from a member of another group: its own object, its own row.
        assert garage.upload(f"{climbers}/{DAY}/p1.jpg", photo)[0] == 200
        status, _, body = garage.insert(photo_row("p1", climbers, group="Climbers"))
        assert status == 201, (status, body)

    with check("rest: refusals: other group 403 42501, anon 401, bad JWT 401 PGRST301, no apikey 401, no update"):
        status, _, body = garage.insert(photo_row("g1", family))
        assert status == 403 and json.loads(body)["code"] == "42501", (status, body)
        anon = {"apikey": kitchen.headers["apikey"], "Content-Type": "application/json"}
        row = json.dumps(photo_row("a1", family)).encode()
        status, headers, body = fake.call("POST", "/rest/v1/group_photos", row, anon)
        assert status == 401 and json.loads(body)["code"] == "42501", (status, body)
        forged = {**kitchen.headers, "Authorization": kitchen.headers["Authorization"][:-2] + "xx"}
        status, answer = fake.json("GET", "/rest/v1/group_photos", None, forged)
        assert status == 401 and answer["code"] == "PGRST301", (status, answer)
        keyless = {"Authorization": kitchen.headers["Authorization"]}
        status, answer = fake.json("GET", "/rest/v1/group_photos", None, keyless)
        assert status == 401 and answer["message"] == "No API key found in request", (status, answer)
        status, _ = fake.json("PATCH", "/rest/v1/group_photos?photo_id=eq.p1", {"day": DAY}, kitchen.headers)
        assert status == 403, status

    with check("rest: members read the day's row and the last 48 hours; another group's member reads nothing"):
        status, rows = hall.select(f"group_name=eq.{quote(GROUP)}&day=eq.{DAY}&select=photo_id,member_name")
        assert status == 200 and rows == [{"photo_id": "p1", "member_name": "Kitchen"}], (status, rows)
        since = quote((NOW - timedelta(hours=48)).isoformat())
        status, rows = hall.select(f"group_name=eq.{quote(GROUP)}&taken_at=gte.{since}&order=taken_at.desc"
                                   f"&select=photo_id,object_path,member_name,taken_at,expires_at,byte_size")
        assert status == 200 and [r["object_path"] for r in rows] == [path] and rows[0]["byte_size"] == len(photo), rows
        assert garage.select(f"group_name=eq.{quote(GROUP)}") == (200, [])

    with check("storage: download whole, Range bytes=N- answers 206; another group's member gets 404"):
        status, headers, data = hall.download(path)
        assert status == 200 and data == photo and headers["Content-Type"] == "image/jpeg", (status, headers)
        status, headers, data = hall.download(path, "bytes=100000-")
        assert status == 206 and data == photo[100000:], status
        assert headers["Content-Range"] == f"bytes 100000-{len(photo) - 1}/{len(photo)}", headers
        status, _, body = garage.download(path)
        assert (status, json.loads(body)["statusCode"]) == (400, "404"), (status, body)
        assert hall.download(path, f"bytes={len(photo)}-")[0] == 416

    with check("storage: a download cut short (fault cut:50000) resumes with Range"):
        fake.json("POST", "/_control/faults", {"storage": ["cut:50000"]})
        received = b""
        try:
            hall.download(path)
        except http.client.IncompleteRead as cut:
            received = cut.partial
        assert len(received) == 50000, len(received)
        status, _, rest = hall.download(path, f"bytes={len(received)}-")
        assert status == 206 and received + rest == photo

    with check("storage: bulk delete removes only one's own objects; what is gone is no error"):
        status, deleted = hall.delete([path])
        assert (status, deleted) == (200, []), (status, deleted)
        status, deleted = kitchen.delete([path, f"{family}/{DAY}/never-there.jpg"])
        assert status == 200 and [d["name"] for d in deleted] == [path], deleted
        status, objects = fake.json("GET", "/_control/objects")
        assert path not in objects, objects

    with check("expiry: /_control/age 49 h hides the row, /_control/expire deletes it, the day is free again"):
        status, moved = fake.json("POST", "/_control/age", {"hours": 49})
        assert status == 200 and moved["rows"] == 2, moved  # kitchen's p1 and garage's
        assert hall.select(f"group_name=eq.{quote(GROUP)}") == (200, [])
        assert fake.json("POST", "/_control/expire") == (200, {"deleted": 2})
        assert fake.json("GET", "/_control/rows") == (200, [])
        assert kitchen.upload(f"{family}/{DAY}/p3.jpg", photo)[0] == 200
        assert kitchen.insert(photo_row("p3", family))[0] == 201

    with check("storage: an upload without Cache-Control is no-cache; a form upload's cacheControl is max-age"):
        # A group of its own: GROUP is full. On this fake tokens last an hour (--jwt-expiry 2 is run_auth's).
        attic = Station(fake, "Lofts", "Attic")
        project, key = Project(fake), attic.token
        name = f"{attic.folder('Lofts')}/{DAY}/attic.jpg"
        status, _, _ = fake.call("POST", f"/storage/v1/object/snapstation/{quote(name)}", jpeg(1000),
                                 {"Authorization": f"Bearer {key}", "Content-Type": "image/jpeg"})
        assert status == 200 and project.storage(key, name)[1]["Cache-Control"] == "no-cache"
        boundary = "snapstation-boundary"
        photo = jpeg(2000)
        form = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n3600\r\n"
                f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"attic.jpg\"\r\n"
                f"Content-Type: image/jpeg\r\n\r\n").encode() + photo + f"\r\n--{boundary}--\r\n".encode()
        status, _, body = fake.call("POST", f"/storage/v1/object/snapstation/{quote(name)}", form,
                                    {"Authorization": f"Bearer {key}", "x-upsert": "true",
                                     "Content-Type": f"multipart/form-data; boundary={boundary}"})
        assert status == 200, body
        status, headers, data = project.storage(key, name)
        assert data == photo and headers["Cache-Control"] == "max-age=3600" and headers["Content-Type"] == "image/jpeg"

    with check("control: reset forgets rows, members and objects"):
        assert fake.json("POST", "/_control/reset")[0] == 200
        assert fake.json("GET", "/_control/rows") == (200, []) and fake.json("GET", "/_control/objects") == (200, [])
        assert kitchen.select("select=photo_id") == (200, [])


CODE = re.compile(r"[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}")


class Caller(Station):
    """A user that signed up and is in no group yet (a new station, or a phone)."""

    def __init__(self, fake, anon_key):
        member = sign_up_member(fake.url, anon_key, None, None)
        self.fake, self.user_id, self.token = fake, member["user_id"], member["access_token"]
        self.headers = {"apikey": anon_key, "Authorization": f"Bearer {self.token}"}


def error_body(status_and_answer, status, code):
    """PostgREST's error body, with this status and code; answers its message."""
    got_status, _, answer = status_and_answer
    assert (got_status, answer.get("code")) == (status, code), status_and_answer
    assert set(answer) == {"code", "details", "hint", "message"}, answer
    return answer["message"]


def run_rpc(fake):
    """Groups made and joined through /rest/v1/rpc (create_group, join_group, group_invite, leave_group)."""
    anon_key = fake.json("GET", "/_control/keys")[1]["anon_key"]
    owner, guest = Caller(fake, anon_key), Caller(fake, anon_key)
    state = {}

    with check("rpc: create_group answers the invite code as a JSON string; join_group answers the group's name"):
        status, headers, code = owner.rpc("create_group", {"group_name": "RPC Group", "member_name": "Kitchen"})
        assert status == 200 and CODE.fullmatch(code), (status, code)
        assert headers["Content-Range"] == "0-0/*" and headers["Content-Type"].startswith("application/json"), headers
        status, _, answer = guest.rpc("join_group", {"invite_code": code.lower().replace("-", " "),
                                                     "member_name": "Hall"})
        assert (status, answer) == (200, "RPC Group"), (status, answer)
        status, names = guest.fake.json("GET", "/rest/v1/members?select=name&order=name", None, guest.headers)
        assert (status, names) == (200, [{"name": "Hall"}, {"name": "Kitchen"}]), (status, names)
        state["code"] = code

    with check("rpc: refusals in PostgREST's error body: wrong or replaced code 403, taken name 409, bad name 400"):
        stranger = Caller(fake, anon_key)
        message = error_body(stranger.rpc("join_group", {"invite_code": "ABCD-EFGH-JKLM", "member_name": "S"}),
                             403, "PT403")
        assert message == "this invite code is not valid", message
        status, _, renewed = guest.rpc("group_invite", {"group_name": "RPC Group"})
        assert status == 200 and CODE.fullmatch(renewed) and renewed != state["code"], renewed
        error_body(stranger.rpc("join_group", {"invite_code": state["code"], "member_name": "S"}), 403, "PT403")
        assert stranger.rpc("join_group", {"invite_code": renewed, "member_name": "S"})[::2] == (200, "RPC Group")
        # A taken name: one answer for a member and for anyone else, naming neither the group nor a member.
        taken = [owner.rpc("create_group", {"group_name": "RPC Group", "member_name": "K"}),
                 Caller(fake, anon_key).rpc("create_group", {"group_name": "RPC Group", "member_name": "K"})]
        assert taken[0][::2] == taken[1][::2], taken
        message = error_body(taken[0], 409, "PT409")
        assert message == "this group name is taken: choose another", message
        assert taken[0][2]["hint"] == "To join a group, ask one of its members for an invite code.", taken
        error_body(owner.rpc("create_group", {"group_name": "A/B", "member_name": "K"}), 400, "PT400")
        error_body(owner.rpc("create_group", {"group_name": "Fine", "member_name": ""}), 400, "PT400")
        error_body(Caller(fake, anon_key).rpc("group_invite", {"group_name": "RPC Group"}), 403, "PT403")
        status, headers, data = fake.call("POST", "/rest/v1/rpc/create_group",
                                          json.dumps({"group_name": "Anon", "member_name": "A"}).encode(),
                                          {"apikey": anon_key, "Content-Type": "application/json"})
        answer = json.loads(data)
        assert (status, answer["code"]) == (401, "42501") and headers["WWW-Authenticate"] == "Bearer", (status, answer)
        assert answer["message"] == "permission denied for function create_group", answer

    with check("rpc: the 13th member is refused with 409 'already has 12 members'; 10 wrong codes, then 429"):
        founder = Caller(fake, anon_key)
        code = founder.rpc("create_group", {"group_name": "Full House", "member_name": "Founder"})[2]
        for index in range(11):
            status, _, answer = Caller(fake, anon_key).rpc("join_group", {"invite_code": code,
                                                                          "member_name": f"Room {index}"})
            assert (status, answer) == (200, "Full House"), (index, status, answer)
        message = error_body(Caller(fake, anon_key).rpc("join_group", {"invite_code": code, "member_name": "13"}),
                             409, "PT409")
        assert message == "group Full House already has 12 members", message
        guesser = Caller(fake, anon_key)
        for attempt in range(10):
            error_body(guesser.rpc("join_group", {"invite_code": f"GUESS-{attempt}", "member_name": "G"}), 403, "PT403")
        message = error_body(guesser.rpc("join_group", {"invite_code": renewed, "member_name": "G"}), 429, "PT429")
        assert message.startswith("too many wrong invite codes: try again after"), message

    with check("rpc: PostgREST's own answers: no such function 404 PGRST202, PATCH 405, bad JSON 400, GET read-only"):
        message = error_body(owner.rpc("no_such_function"), 404, "PGRST202")
        assert message == "Could not find the function public.no_such_function without parameters in the schema cache"
        message = error_body(owner.rpc("create_group", {"group_name": "Half"}), 404, "PGRST202")
        assert message == "Could not find the function public.create_group(group_name) in the schema cache", message
        status, _, answer = owner.rpc("create_group", method="PATCH", body=b"{}")
        assert (status, answer["code"], answer["message"]) == (405, "PGRST101", "Cannot use the PATCH method on RPC")
        error_body(owner.rpc("create_group", body=b"{not json"), 400, "PGRST102")
        # GET runs in a read-only transaction: fine for a stable function, refused for one that writes.
        status, _, groups = owner.rpc("snapstation_my_groups", method="GET")
        assert status == 200 and groups == ["RPC Group"], (status, groups)
        error_body(owner.rpc("group_invite", {"group_name": "RPC Group"}, method="GET"), 405, "25006")

    with check("rpc: leave_group answers the paths of the rows it deleted; then nothing of the group; again 404"):
        folder = guest.folder("RPC Group")
        name = f"{folder}/{DAY}/hall-1.jpg"
        assert guest.upload(name, jpeg(2000))[0] == 200
        assert guest.insert(photo_row("hall-1", folder, group="RPC Group"))[0] == 201
        status, _, paths = guest.rpc("leave_group", {"group_name": "RPC Group"})
        assert (status, paths) == (200, [name]), (status, paths)
        assert guest.select("select=photo_id") == (200, [])
        assert guest.fake.json("GET", "/rest/v1/members?select=name", None, guest.headers) == (200, [])
        status, deleted = guest.delete([name])  # its own object, still its to delete
        assert status == 200 and [d["name"] for d in deleted] == [name], deleted
        message = error_body(guest.rpc("leave_group", {"group_name": "RPC Group"}), 404, "PT404")
        assert message == "you are not a member of group RPC Group", message


def stored_time(text):
    return datetime.fromisoformat(text)


def run_hostile(fake):
    """What a hostile member tries through the REST and Storage APIs (the audit of 2026-11-27, findings 1,
    4 and 5): photo ids that are paths, times and days of its choosing, and a group made again under a
    freed name to read what the old one left behind."""
    mallory = Station(fake, "Hostile & Co", "Mallory")
    folder = mallory.folder("Hostile & Co")
    own = f"{folder}/{DAY}/plain.jpg"  # its own object, in its group's folder: only the id is wrong below
    assert mallory.upload(own, jpeg(1000))[0] == 200

    with check("rest: photo ids ../../x, /abs/path, a/../../x, 300 characters: 400 23514; one with a NUL 400 22P05"):
        for photo_id in ("../../x", "/abs/path", "a/../../x", "x" * 300, "..", "a.b"):
            status, _, body = mallory.insert(photo_row(photo_id, folder, group="Hostile & Co") | {"object_path": own})
            answer = json.loads(body)
            assert (status, answer["code"]) == (400, "23514"), (photo_id, status, answer)
            assert answer["message"] == ('new row for relation "group_photos" violates check constraint '
                                         '"photo_id_is_a_plain_name"'), answer
        # JSON carries a NUL as \u0000, which PostgreSQL's text refuses before any rule looks at the row.
        status, _, body = mallory.insert(photo_row("a\x00b", folder, group="Hostile & Co") | {"object_path": own})
        answer = json.loads(body)
        assert (status, answer["code"]) == (400, "22P05"), (status, answer)
        assert answer["message"] == "unsupported Unicode escape sequence", answer
        assert [row for row in fake.json("GET", "/_control/rows")[1] if row["group_name"] == "Hostile & Co"] == []

    with check("rest: taken_at a week ago is stored as the server's time, expires_at 10 days on as 48 h on"):
        row = photo_row("clock", folder, group="Hostile & Co") | {
            "taken_at": (NOW - timedelta(days=7)).isoformat(), "expires_at": (NOW + timedelta(days=10)).isoformat()}
        assert mallory.upload(row["object_path"], jpeg(1000))[0] == 200
        status, _, body = mallory.insert(row, prefer="return=representation")
        assert status == 201, (status, body)
        stored = json.loads(body)[0]
        taken, expires, created = (stored_time(stored[key]) for key in ("taken_at", "expires_at", "created_at"))
        assert taken == created and expires == created + timedelta(hours=48), stored
        assert abs(datetime.now(timezone.utc) - taken) < timedelta(minutes=1), stored

    with check("rest: a day 3 days ago or 3 days ahead is refused (403 42501), whatever taken_at says"):
        for days in (-3, 3):
            day = (NOW + timedelta(days=days)).date().isoformat()
            row = photo_row(f"day{days}", folder, group="Hostile & Co", day=day) | {
                "taken_at": (NOW + timedelta(days=days)).isoformat()}
            assert mallory.upload(row["object_path"], jpeg(1000))[0] == 200
            status, _, body = mallory.insert(row)
            assert (status, json.loads(body)["code"]) == (403, "42501"), (days, status, body)

    with check("storage: a group made again under a freed name has a new folder and reads none of the old objects"):
        alice = Station(fake, "Freed", "Alice")
        old = alice.folder("Freed")
        names = [f"{old}/{DAY}/alice-{index}.jpg" for index in range(3)]
        for name in names:
            assert alice.upload(name, jpeg(1000))[0] == 200
        assert alice.insert(photo_row("alice-0", old, group="Freed"))[0] == 201
        # Alice leaves without deleting her objects (a station's delete can fail): the group and its name go.
        assert alice.rpc("leave_group", {"group_name": "Freed"})[::2] == (200, [names[0]])
        bob = Station(fake, "Freed", "Bob")  # create_group: the name is free
        carol = Station(fake, "Freed", "Carol", inviter=bob)
        new = bob.folder("Freed")
        assert new not in (None, old) and carol.folder("Freed") == new, (old, new)
        for member in (bob, carol):
            for name in names:
                status, _, body = member.download(name)
                assert (status, json.loads(body)["statusCode"]) == (400, "404"), (name, status, body)
            assert error_of(member.upload(f"{old}/{DAY}/mine.jpg", jpeg(1000)))[:2] == (400, "403")
            assert member.delete(names) == (200, [])
        # The new group shares as ever; Alice still has her own objects to delete.
        assert bob.upload(f"{new}/{DAY}/bob-0.jpg", jpeg(1000))[0] == 200
        assert bob.insert(photo_row("bob-0", new, group="Freed"))[0] == 201
        assert carol.download(f"{new}/{DAY}/bob-0.jpg")[0] == 200
        assert alice.download(names[1])[0] == 200
        status, deleted = alice.delete(names)
        assert status == 200 and sorted(d["name"] for d in deleted) == names, deleted


AUTH_JSON = {"Content-Type": "application/json"}


def token_claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


class Project:
    """The project's keys, and Auth's routes called as a client library calls them."""

    def __init__(self, fake):
        self.fake = fake
        status, keys = fake.json("GET", "/_control/keys")
        assert status == 200, (status, keys)
        self.anon, self.publishable = keys["anon_key"], keys["publishable_key"]
        self.service_role, self.secret = keys["service_role_key"], keys["secret_key"]  # the owner's

    def auth(self, path, body=None, token=None, version=None, method="POST", key=None):
        headers = {"apikey": key or self.anon, **({"Authorization": f"Bearer {token}"} if token else {}),
                   **({"X-Supabase-Api-Version": version} if version else {})}
        status, answer_headers, data = self.fake.call(method, f"/auth/v1/{path}", body, headers)
        return status, answer_headers, (json.loads(data) if data and data[:1] in b"{[" else data)

    def sign_in(self, email, password, version=None):
        return self.auth("token?grant_type=password", {"email": email, "password": password}, version=version)

    def refresh(self, refresh_token):
        status, _, answer = self.auth("token?grant_type=refresh_token", {"refresh_token": refresh_token})
        return status, answer

    def admin(self, user_id, body, key=None, token=None, bearer=True):
        """PUT /auth/v1/admin/users/<id> as the owner's tools send it: the service_role key (or `key`) as
        the apikey and as the bearer (or `token`; none with bearer=False: an sb_secret_ key is only an
        apikey, the gateway makes the bearer)."""
        key = key or self.service_role
        return self.auth(f"admin/users/{user_id}", body, token=(token or key) if bearer else None, method="PUT",
                         key=key)

    def rest(self, token, path="group_photos?select=photo_id"):
        return self.fake.json("GET", f"/rest/v1/{path}", None,
                              {"apikey": self.anon, "Authorization": f"Bearer {token}"})

    def storage(self, token, name, headers=None):
        return self.fake.call("GET", f"/storage/v1/object/authenticated/snapstation/{quote(name)}", None,
                              {**({"Authorization": f"Bearer {token}"} if token else {}), **(headers or {})})


def access_denied(message):
    """Storage's refusal of a token: HTTP 400 with this body."""
    return {"statusCode": "403", "code": "AccessDenied", "error": "Unauthorized", "message": message}


def run_auth(fake, late):
    """Auth, the gateway and expiring tokens; the fake runs with --jwt-expiry 2 and
    --refresh-token-reuse-interval 1, and its clock is moved past each expiry and interval
    (/_control/clock), never slept through: `late`, a member main() signed up as this fake started, is
    moved past PostgREST's 30 s leeway."""
    project = Project(fake)
    email, password = f"kitchen-{uuid.uuid4().hex[:8]}@Example.org", "correct horse"
    member = {}
    fake.hold()

    with check("auth: sign-up answers a session in Auth's shape (autoconfirm), the user confirmed, lower-case"):
        status, headers, session = project.auth("signup", {"email": email, "password": password, "data": {}})
        assert status == 200, (status, session)
        assert list(session) == ["access_token", "token_type", "expires_in", "expires_at", "refresh_token", "user"], \
            list(session)
        assert session["token_type"] == "bearer" and session["expires_in"] in (1, 2), session
        assert re.fullmatch(r"[a-z2-7]{12}", session["refresh_token"]), session["refresh_token"]
        user = session["user"]
        assert user["email"] == email.lower() and user["aud"] == user["role"] == "authenticated", user
        assert user["email_confirmed_at"] and user["app_metadata"] == {"provider": "email", "providers": ["email"]}
        assert user["identities"][0]["provider"] == "email" and user["identities"][0]["id"] == user["id"]
        claims = token_claims(session["access_token"])
        assert claims["sub"] == user["id"] and claims["role"] == "authenticated" and claims["aud"] == "authenticated"
        assert claims["exp"] - claims["iat"] == 2 and claims["exp"] == session["expires_at"], claims
        assert claims["session_id"] == headers["sb-auth-session-id"] and claims["amr"][0]["method"] == "password"
        member.update(user_id=user["id"])

    with check("auth: sign-up again 422 user_already_exists; a short password 422 weak_password; no email 422"):
        status, _, answer = project.auth("signup", {"email": email, "password": password}, version="2024-01-01")
        assert (status, answer) == (422, {"code": "user_already_exists", "message": "User already registered"})
        status, _, answer = project.auth("signup", {"email": "x@example.org", "password": "12345"})
        assert status == 422 and answer["error_code"] == "weak_password", answer
        assert answer["weak_password"] == {"reasons": ["length"]}, answer
        status, _, answer = project.auth("signup", {"password": password})
        assert status == 422 and answer["error_code"] == "anonymous_provider_disabled", answer

    with check("auth: wrong password 400 invalid_credentials, in the legacy body and the 2024-01-01 one"):
        status, headers, answer = project.sign_in(email, "wrong horse")
        assert (status, answer) == (400, {"code": 400, "error_code": "invalid_credentials",
                                          "msg": "Invalid login credentials"}), (status, answer)
        assert headers["x-sb-error-code"] == "invalid_credentials"
        status, headers, answer = project.sign_in("nobody@example.org", password, version="2024-01-01")
        assert (status, answer) == (400, {"code": "invalid_credentials", "message": "Invalid login credentials"})
        assert headers["X-Supabase-Api-Version"] == "2024-01-01"
        status, _, answer = project.auth("token?grant_type=magic", {})
        assert status == 400 and answer["msg"] == "unsupported_grant_type", answer

    with check("gateway: apikey needed on /auth and /rest (anon or sb_publishable_), not on /storage"):
        status, _, session = project.sign_in(email, password, version="2024-01-01")
        assert status == 200, session
        token = session["access_token"]
        assert project.fake.json("POST", "/auth/v1/token?grant_type=password", {"email": email, "password": password}
                                 )[1]["message"] == "No API key found in request"
        status, answer = project.fake.json("GET", "/rest/v1/group_photos", None,
                                           {"apikey": "sb_publishable_not-this-project",
                                            "Authorization": f"Bearer {token}"})
        assert (status, answer["message"]) == (401, "Invalid API key"), (status, answer)
        assert project.auth("user", token=token, method="GET", key=project.publishable)[0] == 200
        status, answer = project.fake.json("GET", "/rest/v1/group_photos?select=photo_id", None,
                                           {"apikey": project.publishable, "Authorization": f"Bearer {token}"})
        assert (status, answer) == (200, []), (status, answer)
        # The publishable key alone is the anon role, which may not read group_photos.
        status, answer = project.fake.json("GET", "/rest/v1/group_photos", None, {"apikey": project.publishable})
        assert status == 401 and answer["code"] == "42501", (status, answer)
        # Storage: no key check; the bearer alone decides (404: no such object, not a refusal).
        status, _, body = project.storage(token, "Nowhere/x.jpg", {"apikey": "not a key"})
        assert (status, json.loads(body)["statusCode"]) == (400, "404"), (status, body)
        status, _, body = project.storage(None, "Nowhere/x.jpg")
        assert (status, json.loads(body)) == (400, access_denied("Invalid Compact JWS")), (status, body)

    with check("expiry: PostgREST 401 PGRST303 'JWT expired' 30 s after exp; Storage 400/403 at exp; Auth 403 bad_jwt"):
        # --jwt-expiry 2: the signed-in session's token, once its 2 s are up, is refused by Storage; PostgREST
        # still takes it (its 30 s leeway).
        fake.advance_past(session["expires_at"])
        assert project.rest(token)[0] == 200
        assert json.loads(project.storage(token, f"{GROUP}/x.jpg")[2])["message"].startswith('"exp"')
        # The late member's token, more than 30 s past its exp: every service refuses it.
        key = late["access_token"]
        fake.advance_past(token_claims(key)["exp"] + POSTGREST_SKEW + 1)
        status, headers, body = fake.call("GET", "/rest/v1/group_photos", None,
                                          {"apikey": project.anon, "Authorization": f"Bearer {key}"})
        assert (status, json.loads(body)) == (401, {"code": "PGRST303", "details": None, "hint": None,
                                                    "message": "JWT expired"}), (status, body)
        assert headers["WWW-Authenticate"] == 'Bearer error="invalid_token", error_description="JWT expired"', headers
        status, _, body = project.storage(key, f"{GROUP}/x.jpg")
        assert (status, json.loads(body)) == (400, access_denied('"exp" claim timestamp check failed')), body
        status, _, body = project.auth("user", token=key, method="GET")
        assert (status, body["error_code"]) == (403, "bad_jwt") and body["msg"].endswith("token is expired"), body

    with check("refresh: rotates; the used token again answers the active child; after the interval 'Already Used'"):
        status, _, session = project.sign_in(email, password)
        first = session["refresh_token"]
        status, second = project.refresh(first)
        # (The access token may be the same one: same claims within the same second.)
        assert status == 200 and second["refresh_token"] != first, (status, second)
        assert second["user"]["id"] == member["user_id"] and second["expires_in"] in (1, 2)
        assert project.rest(second["access_token"])[0] == 200
        status, again = project.refresh(first)
        assert status == 200 and again["refresh_token"] == second["refresh_token"], "the parent of the active token"
        status, third = project.refresh(second["refresh_token"])
        assert status == 200 and third["refresh_token"] not in (first, second["refresh_token"])
        fake.advance(1.2)  # past the reuse interval (1 s here, 10 s by default)
        status, answer = project.refresh(first)
        assert (status, answer) == (400, {"code": 400, "error_code": "refresh_token_already_used",
                                          "msg": "Invalid Refresh Token: Already Used"}), (status, answer)
        fake.advance(1.2)
        status, answer = project.refresh(third["refresh_token"])
        assert (status, answer["error_code"]) == (400, "refresh_token_already_used"), "the whole family is revoked"
        status, answer = project.refresh("not-a-token")
        assert (status, answer["error_code"], answer["msg"]) == (400, "validation_failed", "Refresh token is not valid")
        status, answer = project.refresh("abcdefghijkl")
        assert (status, answer["msg"]) == (400, "Invalid Refresh Token: Refresh Token Not Found"), answer

    with check("refresh: an older revoked token used within the interval gets a new child, as Auth's rule has it"):
        status, _, session = project.sign_in(email, password)
        first = session["refresh_token"]
        second = project.refresh(first)[1]["refresh_token"]
        third = project.refresh(second)[1]["refresh_token"]
        fake.advance(0.9)  # the clock held: 0.9 s after the revocation, inside the 1 s interval
        status, branch = project.refresh(first)  # not the active token's parent, but used again within 1 s
        assert status == 200 and branch["refresh_token"] not in (first, second, third), (status, branch)

    with check("logout: 204; its refresh token is gone, /user says the session is; PostgREST still takes the JWT"):
        status, _, session = project.sign_in(email, password)
        token = session["access_token"]
        status, _, body = project.auth("logout", token=token)
        assert (status, body) == (204, b""), (status, body)
        status, answer = project.refresh(session["refresh_token"])
        assert (status, answer["error_code"]) == (400, "refresh_token_not_found"), answer
        status, _, answer = project.auth("user", token=token, method="GET")
        assert (status, answer["error_code"]) == (403, "session_not_found"), answer
        assert project.rest(token)[0] == 200, "REST checks only the signature and exp"

    with check("members: sign_up_member answers email, password and a refresh token that work with Auth"):
        answer = sign_up_member(fake.url, project.anon, "Verandas", "Porch")
        assert token_claims(answer["access_token"])["sub"] == answer["user_id"], answer
        assert project.sign_in(answer["email"], answer["password"])[0] == 200
        status, refreshed = project.refresh(answer["refresh_token"])
        assert status == 200 and token_claims(refreshed["access_token"])["sub"] == answer["user_id"]
        status, members = project.rest(refreshed["access_token"], "rpc/group_members?group_name=Verandas")
        assert status == 200 and [(m["member_name"], m["is_caller"]) for m in members] == [("Porch", True)], members


def run_admin(fake):
    """Auth's admin API (/auth/v1/admin/users/<id>) as a project owner disables a station's user: with the
    service_role key, {"ban_duration": "876000h"}; "none" enables it again."""
    project = Project(fake)
    member = sign_up_member(fake.url, project.anon, "Sheds", "Shed")
    user, ban, lift = member["user_id"], {"ban_duration": "876000h"}, {"ban_duration": "none"}

    with check("admin: the owner's keys: service_role a JWT of that role, secret an sb_secret_ key"):
        assert token_claims(project.service_role)["role"] == "service_role", token_claims(project.service_role)
        assert project.secret.startswith("sb_secret_") and project.secret != project.publishable, project.secret

    with check("admin: the anon key (or a member's token) as bearer 403 not_admin 'User not allowed'; no bearer 401"):
        status, _, answer = project.admin(user, ban, key=project.anon)
        assert (status, answer) == (403, {"code": 403, "error_code": "not_admin", "msg": "User not allowed"}), \
            (status, answer)
        status, _, answer = project.admin(user, ban, key=project.anon, token=member["access_token"])
        assert (status, answer["error_code"]) == (403, "not_admin"), (status, answer)
        status, _, answer = project.admin(user, ban, bearer=False)
        assert (status, answer["error_code"], answer["msg"]) == \
            (401, "no_authorization", "This endpoint requires a valid Bearer token"), (status, answer)
        status, answer = fake.json("PUT", f"/auth/v1/admin/users/{user}", ban,
                                   {"Authorization": f"Bearer {project.service_role}"})
        assert (status, answer["message"]) == (401, "No API key found in request"), (status, answer)
        status, _, answer = project.sign_in(member["email"], member["password"])
        assert status == 200 and "banned_until" not in answer["user"], (status, answer)

    with check("admin: unknown user 404 user_not_found, not a UUID 404, a bad duration 400 in Go's words"):
        status, _, answer = project.admin(str(uuid.uuid4()), ban)
        assert (status, answer["error_code"], answer["msg"]) == (404, "user_not_found", "User not found"), answer
        status, _, answer = project.admin("not-a-uuid", ban)
        assert (status, answer["error_code"], answer["msg"]) == (404, "validation_failed", "user_id must be an UUID")
        status, _, answer = project.admin(user, {"ban_duration": "100y"})
        assert (status, answer["error_code"]) == (400, "validation_failed"), (status, answer)
        assert answer["msg"] == 'invalid format for ban duration: time: unknown unit "y" in duration "100y"', answer
        status, _, answer = project.admin(user, {"ban_duration": "1000"})
        assert answer["msg"] == 'invalid format for ban duration: time: missing unit in duration "1000"', answer

    with check("admin: the service_role key bans: 200 and the user, banned_until 876000 h from now"):
        status, _, answer = project.admin(user, ban)
        assert status == 200 and answer["id"] == user and answer["email"] == member["email"], (status, answer)
        until = datetime.fromisoformat(answer["banned_until"].replace("Z", "+00:00"))
        assert abs(until - datetime.now(timezone.utc) - timedelta(hours=876000)) < timedelta(minutes=1), until

    with check("admin: banned: sign-in 400 user_banned, refresh 400 'User Banned', /user 403; REST takes its token"):
        status, _, answer = project.sign_in(member["email"], member["password"])
        assert (status, answer) == (400, {"code": 400, "error_code": "user_banned", "msg": "User is banned"}), \
            (status, answer)
        status, answer = project.refresh(member["refresh_token"])
        assert (status, answer) == (400, {"code": 400, "error_code": "user_banned",
                                          "msg": "Invalid Refresh Token: User Banned"}), (status, answer)
        status, _, answer = project.auth("user", token=member["access_token"], method="GET")
        assert (status, answer["error_code"], answer["msg"]) == (403, "user_banned", "User is banned"), answer
        assert project.rest(member["access_token"])[0] == 200, "REST checks only the signature and exp"

    with check("admin: ban_duration none (the secret key as apikey alone) lifts it; sign-in and the old refresh "
               "token work again"):
        status, _, answer = project.admin(user, lift, key=project.secret, bearer=False)
        assert status == 200 and "banned_until" not in answer, (status, answer)
        assert project.sign_in(member["email"], member["password"])[0] == 200
        status, refreshed = project.refresh(member["refresh_token"])
        assert status == 200 and token_claims(refreshed["access_token"])["sub"] == user, (status, refreshed)


def main():
    cluster = groupdb.Cluster.from_environment()
    cluster.check_reachable()
    began = time.monotonic()
    with check("without --postgres the Supabase routes answer 503; queued faults and the rest still work"):
        plain = Fake()
        try:
            needs = (503, {"message": "the Supabase stand-in needs --postgres"})
            assert plain.json("POST", "/rest/v1/group_photos", {}) == needs
            assert plain.json("GET", "/storage/v1/object/authenticated/snapstation/a.jpg") == needs
            assert plain.json("GET", "/_control/keys") == needs
            plain.json("POST", "/_control/faults", {"storage": ["500"]})
            assert plain.json("POST", "/storage/v1/object/b/x.jpg", b"123")[0] == 500
            assert plain.json("POST", "/storage/v1/object/b/x.jpg", b"123") == needs
            assert plain.json("POST", "/_control/sink", b"x" * 1000) == (200, {"size": 1000})
            assert len(plain.json("GET", "/_requests")[1]) == 4
        finally:
            plain.close()
    fake = short = late = None
    with check("the fake starts with its own database (--postgres)"):
        fake = Fake("--postgres", cluster.socket_dir, "--pg-port", str(cluster.port), "--pg-user", cluster.superuser)
    # A member signed up before run_auth holds the fake's clock: run_auth moves it past the member's token's
    # exp and PostgREST's leeway (each service has its own rule for exp).
    with check("a fake with --jwt-expiry 2 --refresh-token-reuse-interval 1 starts; a member signs up there"):
        short = Fake("--postgres", cluster.socket_dir, "--pg-port", str(cluster.port), "--pg-user", cluster.superuser,
                     "--jwt-expiry", "2", "--refresh-token-reuse-interval", "1")
        late = sign_up_member(short.url, short.anon_key(), GROUP, "Late")
    try:
        if fake:
            try:
                run(fake)
                run_rpc(fake)
                run_hostile(fake)
                run_admin(fake)
            finally:
                fake.close()
        if short and late:
            run_auth(short, late)
    finally:
        if short:
            short.close()
    with check("the fake dropped its database when its stdin closed"):
        assert fake, "it never started"
        with cluster.connect() as admin:
            left = admin.execute("select datname from pg_database where datname = %s",
                                 [f"snapstation_fake_{fake.process.pid}"]).fetchall()
        assert left == [], left
    print(f"fake checks took {time.monotonic() - began:.1f}s")
    finish("fake: ")


if __name__ == "__main__":
    main()
