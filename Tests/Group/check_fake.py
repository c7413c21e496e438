#!/usr/bin/env python3
"""Checks the Supabase stand-in (Tests/Fakes/fake_services.py --postgres) end to end over HTTP, the way
the station calls it: keys from /_control/member, uploads, row inserts, reads, ranged downloads, bulk
deletes, and the 48-hour expiry.

    Tests/Group/postgres.sh start && python3 Tests/Group/check_fake.py

Prints each check with its time and `fake: N passed, M failed`; exits non-zero on any failure.
"""
import http.client
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from urllib.parse import quote

import groupdb

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
from pychecks import check, finish  # noqa: E402  (Tests/Support/pychecks.py)

FAKE = groupdb.ROOT / "Tests/Fakes/fake_services.py"
GROUP = "Family & Friends"  # a name that needs URL encoding, as real ones do
NOW = datetime.now(timezone.utc)
DAY = NOW.date().isoformat()


class Fake:
    """A running fake_services.py; stops when closed (its stdin closes, as the Swift tests do it)."""

    def __init__(self, *arguments):
        self.process = subprocess.Popen([sys.executable, str(FAKE), *arguments], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        assert line.startswith("PORT "), f"the fake did not start: {line!r}"
        self.port = int(line.split()[1])

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

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


class Station:
    """A member's keys, and the calls the station makes with them."""

    def __init__(self, fake, group, name, user_id=None):
        status, answer = fake.json("POST", "/_control/member",
                                   {"group": group, "name": name, **({"user_id": user_id} if user_id else {})})
        assert status == 200, (status, answer)
        self.fake, self.user_id = fake, answer["user_id"]
        self.headers = {"apikey": answer["anon_key"], "Authorization": f"Bearer {answer['key']}"}

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


def photo_row(photo_id, group=GROUP, day=DAY, size=None):
    taken = NOW - timedelta(minutes=2)
    return {"group_name": group, "day": day, "photo_id": photo_id, "object_path": f"{group}/{day}/{photo_id}.jpg",
            "byte_size": size, "taken_at": taken.isoformat(), "expires_at": (taken + timedelta(hours=48)).isoformat()}


def jpeg(size):
    return b"\xff\xd8" + os.urandom(size - 2)


def error_of(answer):
    """Storage's errors come as HTTP 400 with the real status in the body."""
    status, body = answer
    return status, body.get("statusCode"), body.get("message")


def run(fake):
    photo = jpeg(120_000)
    path = f"{GROUP}/{DAY}/p1.jpg"

    with check("control: members get keys; the 13th member of a group is refused with 409"):
        kitchen, hall = Station(fake, GROUP, "Kitchen"), Station(fake, GROUP, "Hall")
        garage = Station(fake, "Climbers", "Garage")
        for index in range(10):
            Station(fake, GROUP, f"Room {index}")
        status, answer = fake.json("POST", "/_control/member", {"group": GROUP, "name": "Thirteenth"})
        assert status == 409 and "already has 12 members" in answer["message"], (status, answer)

    with check("storage: upload (x-upsert) answers the Key; again rewrites; without upsert 409; elsewhere 403"):
        status, answer = kitchen.upload(path, photo)
        assert status == 200 and answer["Key"] == f"snapstation/{path}" and answer["Id"], (status, answer)
        assert kitchen.upload(path, photo)[0] == 200
        assert error_of(kitchen.upload(path, photo, upsert=False))[:2] == (400, "409")
        assert error_of(garage.upload(f"{GROUP}/{DAY}/g.jpg", photo)) == \
            (400, "403", "new row violates row-level security policy")
        assert error_of(hall.upload(path, photo))[:2] == (400, "403"), "rewrote another member's object"
        assert error_of(kitchen.upload(f"{GROUP}/{DAY}/big.jpg", jpeg(21 * 1024 * 1024)))[:2] == (400, "413")
        assert error_of(kitchen.upload(f"{GROUP}/{DAY}/x.gif", photo, content_type="image/gif"))[:2] == (400, "415")

    with check("rest: insert answers 201 with no body; a retry 409 one_row_per_photo; a 2nd photo 409 daily rule"):
        status, _, body = kitchen.insert(photo_row("p1", size=len(photo)))
        assert (status, body) == (201, b""), (status, body)
        status, _, body = kitchen.insert(photo_row("p1"))
        answer = json.loads(body)
        assert status == 409 and answer["code"] == "23505" and "one_row_per_photo" in answer["message"], answer
        status, _, body = kitchen.insert(photo_row("p2"))
        answer = json.loads(body)
        assert status == 409 and "one_photo_per_member_per_day" in answer["message"], (status, answer)
        status, _, _ = kitchen.insert(photo_row("p1"), "return=minimal,resolution=ignore-duplicates",
                                      "?on_conflict=photo_id")
        assert status == 201, "a retry that ignores its own duplicate"

    with check("rest: refusals: other group 403 42501, anon 401, bad JWT 401 PGRST301, no apikey 401, no update"):
        status, _, body = garage.insert(photo_row("g1"))
        assert status == 403 and json.loads(body)["code"] == "42501", (status, body)
        anon = {"apikey": kitchen.headers["apikey"], "Content-Type": "application/json"}
        status, headers, body = fake.call("POST", "/rest/v1/group_photos", json.dumps(photo_row("a1")).encode(), anon)
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
        status, deleted = kitchen.delete([path, f"{GROUP}/{DAY}/never-there.jpg"])
        assert status == 200 and [d["name"] for d in deleted] == [path], deleted
        status, objects = fake.json("GET", "/_control/objects")
        assert path not in objects, objects

    with check("expiry: /_control/age 49 h hides the row, /_control/expire deletes it, the day is free again"):
        status, moved = fake.json("POST", "/_control/age", {"hours": 49})
        assert status == 200 and moved["rows"] == 1, moved
        assert hall.select(f"group_name=eq.{quote(GROUP)}") == (200, [])
        assert fake.json("POST", "/_control/expire") == (200, {"deleted": 1})
        assert fake.json("GET", "/_control/rows") == (200, [])
        assert kitchen.insert(photo_row("p3"))[0] == 201

    with check("control: reset forgets rows, members and objects"):
        assert fake.json("POST", "/_control/reset")[0] == 200
        assert fake.json("GET", "/_control/rows") == (200, []) and fake.json("GET", "/_control/objects") == (200, [])
        assert kitchen.select("select=photo_id") == (200, [])


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
            assert plain.json("POST", "/_control/member", {"group": "A", "name": "B"}) == needs
            plain.json("POST", "/_control/faults", {"storage": ["500"]})
            assert plain.json("POST", "/storage/v1/object/b/x.jpg", b"123")[0] == 500
            assert plain.json("POST", "/storage/v1/object/b/x.jpg", b"123") == needs
            assert plain.json("POST", "/_control/sink", b"x" * 1000) == (200, {"size": 1000})
            assert len(plain.json("GET", "/_requests")[1]) == 4
        finally:
            plain.close()
    fake = None
    with check("the fake starts with its own database (--postgres)"):
        fake = Fake("--postgres", cluster.socket_dir, "--pg-port", str(cluster.port), "--pg-user", cluster.superuser)
    if fake:
        try:
            run(fake)
        finally:
            fake.close()
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
