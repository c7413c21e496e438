"""Members of a Supabase project's groups, made through its public API as a station or a phone makes them
(docs/supabase/groups.md): a new user signs up (/auth/v1/signup; confirmed at once, as on the stand-in and
on a project with autoconfirm), then makes the group (rpc create_group) or joins it (rpc join_group) with
a code an earlier member asks for (rpc group_invite). Shared by Tests/Group/check_fake.py,
Tests/Benchmarks/latency.py and Tests/Arm64/check.py; the stand-in's anon key is on GET /_control/keys, as
a dashboard shows it."""
import json
import secrets
import urllib.error
import urllib.request


class Refused(Exception):
    """An answer other than 2xx: the route, the HTTP status and the body (JSON when it is JSON)."""

    def __init__(self, path, status, answer):
        super().__init__(f"{path}: HTTP {status}: {answer}")
        self.path, self.status, self.answer = path, status, answer


def post(base_url, anon_key, path, body, token=None):
    """POSTs `body` as JSON with the project's key (and the user's token); answers the JSON, or Refused."""
    headers = {"apikey": anon_key, "Content-Type": "application/json",
               **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(base_url.rstrip("/") + path, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        data = error.read()
        try:
            answer = json.loads(data)
        except ValueError:
            answer = data.decode(errors="replace")
        raise Refused(path, error.code, answer) from None


def sign_up_member(base_url, anon_key, group, name, inviter=None):
    """A new user with a made-up email and password, signed up; then, as member `name`, the maker of
    `group` (inviter None) or a member of it with a fresh code that `inviter`, an earlier member's access
    token, asks for. `group` None: the user alone, in no group. Answers {"access_token", "refresh_token",
    "user_id", "email", "password", "anon_key"}; a refusal raises Refused (a full group: HTTP 409, PT409)."""
    email, password = f"member-{secrets.token_hex(6)}@example.org", secrets.token_urlsafe(12)
    session = post(base_url, anon_key, "/auth/v1/signup", {"email": email, "password": password})
    if not session.get("access_token"):
        raise Refused("/auth/v1/signup", 200, "no session: the project waits for an email confirmation")
    token = session["access_token"]
    if group is not None and inviter is None:
        post(base_url, anon_key, "/rest/v1/rpc/create_group", {"group_name": group, "member_name": name}, token)
    elif group is not None:
        code = post(base_url, anon_key, "/rest/v1/rpc/group_invite", {"group_name": group}, inviter)
        post(base_url, anon_key, "/rest/v1/rpc/join_group", {"invite_code": code, "member_name": name}, token)
    return {"access_token": token, "refresh_token": session["refresh_token"], "user_id": session["user"]["id"],
            "email": email, "password": password, "anon_key": anon_key}


def standin_on_postgres(root):
    """The Supabase and OpenAI stand-in (Tests/Fakes/fake_services.py) on the test PostgreSQL cluster
    (Tests/Group/postgres.sh, started when it is not), run by the PATH's python3, which postgres.sh gave
    psycopg: answers (process, base URL, anon key). Closing the process's standard input stops it."""
    import os
    import shutil
    import subprocess

    postgres = os.path.join(root, "Tests/Group/postgres.sh")
    subprocess.run([postgres, "start"], check=True, stdout=subprocess.DEVNULL)
    pg = dict(line.split("=", 1) for line in subprocess.run([postgres, "env"], capture_output=True, text=True)
              .stdout.split() if line.startswith("SNAPSTATION_PG") and "=" in line)
    process = subprocess.Popen(
        [shutil.which("python3"), os.path.join(root, "Tests/Fakes/fake_services.py"),
         "--postgres", pg["SNAPSTATION_PG_SOCKET"], "--pg-port", pg["SNAPSTATION_PG_PORT"],
         "--pg-user", pg["SNAPSTATION_PG_USER"]],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{process.stdout.readline().split()[1]}"
    with urllib.request.urlopen(base + "/_control/keys", timeout=10) as answer:
        anon_key = json.loads(answer.read())["anon_key"]
    return process, base, anon_key
