#!/usr/bin/env python3
"""Local stand-ins for the cloud services SnapStation talks to, speaking their real wire formats.

    python3 Tests/Fakes/fake_services.py [--cert CERT --key KEY] [--port N] [--openai-models M1,M2,...]
                                         [--postgres SOCKET_DIR [--pg-port 5432] [--pg-user postgres]
                                          [--jwt-expiry SECONDS] [--refresh-token-reuse-interval SECONDS]
                                          [--no-autoconfirm]] [--keep-running]

Binds 127.0.0.1 on a free port and prints "PORT <n>" once it is ready. Serves:
  POST /v1/chat/completions             OpenAI chat completions (Bearer test-key), as strict as OpenAI, for the
                                        models in --openai-models (openai_api.py, its errors openai_faults.py)
  GET  /v1/models                       OpenAI's list of models (the same key and models): the page's try of the
                                        AI service
  /auth/v1/signup, /auth/v1/token?grant_type=password|refresh_token, /auth/v1/user, /auth/v1/logout
                                        Supabase Auth: users, sessions, rotating refresh tokens (auth_api.py)
  GET, PUT /auth/v1/admin/users/<id>    Auth's admin API with the service_role (or secret) key: a user, and
                                        {"ban_duration": "876000h"} disabling it ("none" enabling it again)
  /storage/v1/object/...                Supabase Storage: upload, download (Range), delete
  /rest/v1/<table>                      Supabase REST (PostgREST): select with filters, insert, update, delete
The Supabase routes run in a fresh database of the PostgreSQL cluster given with --postgres
(Tests/Group/postgres.sh), with docs/supabase/schema.sql loaded, as the caller's role and JWT: the
constraints, the member cap and row-level security answer for real (supabase_standin.py, postgrest.py,
storage_api.py). Without --postgres they answer 503. In front of them the gateway wants one of the project's
keys (anon or sb_publishable_…; the owner's service_role or sb_secret_…) as `apikey` on /auth/v1 and /rest/v1,
not on /storage/v1 (kong.yml).
Access tokens that Auth issues last --jwt-expiry seconds (default 3600, Auth's); each service then refuses
them by its own rule (Storage at `exp`, PostgREST 30 s later). A refresh token is rotated on each use; a
revoked one reused after --refresh-token-reuse-interval seconds (default 10) revokes its whole session.
Sign-ups are confirmed at once (GOTRUE_MAILER_AUTOCONFIRM) unless --no-autoconfirm.
The fake stops when its standard input closes (as the tests close it), or on SIGTERM; --keep-running
ignores standard input (Tests/Group/standin).
Control, for tests:
  POST /_control/faults  {"openai": ["429:2", "ok"], "storage": [...], "rest": [...], "auth": [...]}  queue behaviours
                         (400 and nothing queued when an OpenAI fault's name is unknown)
  GET  /_requests        what was received (no secrets; for OpenAI also the body without image data, its
                         key_order and each schema object's property order, schema_order)
  POST /hook/...         a webhook: any POST answered 200 (or the next "hook" fault), its body kept in /_requests
  POST /ntfy/, GET /ntfy/<topic>/json?poll=1
                         ntfy's JSON publish and its poll (ntfy_api.py)
  POST /_control/reset   forget faults and requests (and every Supabase row, member and object; ntfy's messages)
  POST /_control/sink    reads any body and answers 200 {"size": n}
  POST /_control/clock {"hold", "advance"} (the services' clock for tokens, held and moved by tests),
  POST /_control/age {"hours"}, POST /_control/expire, GET /_control/objects, GET /_control/rows,
  POST /_control/older_schema {"copy_of", "photo_ids"} (photo ids unchecked, as an older schema.sql left them),
  GET /_control/keys (the anon and publishable keys; the owner's service_role and secret keys)
                         the Supabase side door (supabase_standin.py)
Faults (queued per service: openai, storage, rest, auth, hook), every service: ok, 401, 429:SECONDS, 500, 503,
timeout, reset, drip, answer:STATUS:JSON (that status and body as given: what a hostile or broken server
could say and the stand-in would not, such as a function's hint with markup or a name no group can have);
Supabase also cut[:BYTES] (send the head and part of the body, then close: a download
cut short). OpenAI also (each OpenAI's real answer, see
openai_faults.py): malformed, refusal, offschema, mismatch, overflow, manyitems, huge, content_filter,
null_content, length, 400_image, 400_image_format, 400_max_tokens, 400_temperature, 400_schema, 403_region,
403_model, 404_model, 429_quota, 429_ms[:MS], 429_ms_ra[:MS], 429_reset[:REQUESTS,TOKENS], llama_no_mmproj.
"""
import argparse
import json
import signal
import socket
import ssl
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from urllib.parse import urlparse

import ntfy_api
import openai_api
import openai_faults
from reply import Reply

lock = threading.Lock()
faults = {"openai": [], "storage": [], "rest": [], "auth": [], "hook": []}
received = []
supabase = None  # the stand-in's parts (standin, rest, storage) when started with --postgres
NEEDS_POSTGRES = {"message": "the Supabase stand-in needs --postgres"}

openai = openai_api.OpenAIStandIn()  # its models come from --openai-models
ntfy = ntfy_api.NtfyStandIn()


def next_fault(service):
    with lock:
        return faults[service].pop(0) if faults[service] else "ok"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def reply(self, status, payload, headers=(), content_type="application/json"):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up first (a test that cancels, a timeout): nobody to answer

    def fault(self, fault, ok):
        """Answers with `fault`, or calls `ok` for a normal answer."""
        if fault == "ok":
            return ok()
        if fault == "401":
            return self.reply(401, {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}})
        if fault.startswith("429"):
            seconds = fault.split(":")[1] if ":" in fault else "1"
            return self.reply(429, {"error": {"message": "Rate limit reached", "type": "requests"}},
                              [("Retry-After", seconds)])
        if fault in ("500", "503"):
            return self.reply(int(fault), {"error": {"message": "The server had an error"}})
        if fault == "timeout":
            time.sleep(30)
            return self.reply(500, {"error": {"message": "too late"}})
        if fault == "reset":
            return self.reset_connection()
        if fault.startswith("answer:"):
            _, status, body = fault.split(":", 2)
            return self.reply(int(status), body.encode())
        if fault == "drip":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            try:
                for _ in range(30):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(1)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up, as it should
                self.close_connection = True
            return None
        return ok()

    def reset_connection(self):
        # Linger 0 turns close into a TCP reset; the reader must close first, or Python keeps the socket.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.rfile.close()
        self.connection.close()
        self.close_connection = True

    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/_requests":
            with lock:
                return self.reply(200, received)
        if url.path.startswith("/_control/"):
            return self.control("GET", url.path, b"")
        if is_supabase(url.path):
            return self.supabase("GET", url, b"")
        if url.path.startswith("/ntfy/") and url.path.endswith("/json"):
            return self.send_reply(ntfy.poll(url.path[len("/ntfy/"):-len("/json")]))
        if url.path == "/v1/models":
            record = {"method": "GET", "path": url.path, "size": 0,
                      "auth_ok": self.headers.get("Authorization") == f"Bearer {openai.key}"}
            answer = openai.list_models(self.headers, record)
            with lock:
                received.append(record)
            return self.send_reply(answer)
        self.reply(404, {"error": "not found"})

    def do_DELETE(self):
        self.route_supabase_only("DELETE")

    def do_PATCH(self):
        self.route_supabase_only("PATCH")

    def do_PUT(self):
        self.route_supabase_only("PUT")

    def route_supabase_only(self, method):
        url = urlparse(self.path)
        body = self.body()
        if is_supabase(url.path):
            return self.supabase(method, url, body)
        self.reply(404, {"error": "not found"})

    def do_POST(self):
        url = urlparse(self.path)
        body = self.body()
        auth_ok = self.headers.get("Authorization") == f"Bearer {openai.key}"
        record = {"method": "POST", "path": url.path, "size": len(body), "auth_ok": auth_ok,
                  "headers": {k: v for k, v in self.headers.items() if k.lower() not in ("authorization", "apikey")}}
        if url.path == "/_control/faults/clear":  # the faults queued and not yet met, forgotten
            with lock:
                for items in faults.values():
                    items.clear()
            return self.reply(200, {"ok": True})
        if url.path == "/_control/faults":
            queue = json.loads(body)
            unknown = [name for name in queue.get("openai", []) if not openai_faults.known(name)]
            if unknown:
                return self.reply(400, {"error": f"unknown OpenAI faults: {', '.join(unknown)}"})
            with lock:
                for service, items in queue.items():
                    faults[service].extend(items)
            return self.reply(200, {"ok": True})
        if url.path.startswith("/_control/"):
            return self.control("POST", url.path, body)
        if url.path == "/v1/chat/completions":
            return self.chat(body, record)
        if url.path == "/ntfy/":
            return self.send_reply(ntfy.publish(body, self.headers))
        if url.path.startswith("/hook/"):  # a webhook: any POST, kept whole for the test to read
            record["body"] = body.decode("utf-8", "replace")
            with lock:
                received.append(record)
            return self.fault(next_fault("hook"), lambda: self.reply(200, {"ok": True}))
        if is_supabase(url.path):
            return self.supabase("POST", url, body)
        self.reply(404, {"error": "not found"})

    def control(self, method, path, body):
        route = path[len("/_control/"):]
        if (method, route) == ("POST", "reset"):
            with lock:
                for queue in faults.values():
                    queue.clear()
                received.clear()
            ntfy.reset()
            if supabase:
                supabase.standin.control(method, route, body, supabase.storage)
            return self.reply(200, {"ok": True})
        if (method, route) == ("POST", "sink"):  # takes any body: for the HTTP client's own tests
            return self.reply(200, {"size": len(body)})
        if supabase is None:
            return self.reply(503, NEEDS_POSTGRES)
        answer = supabase.standin.control(method, route, body, supabase.storage)
        if answer is None:
            return self.reply(404, {"error": "not found"})
        self.send_reply(answer)

    def chat(self, body, record):
        """OpenAI's chat completions (openai_api.py): its answer, or a transport fault played here."""
        answer = openai.handle(self.headers, body, next_fault("openai"), record)
        with lock:
            received.append(record)
        if isinstance(answer, Reply):
            return self.send_reply(answer)
        return self.fault(answer, None)

    def supabase(self, method, url, body):
        """An Auth, Storage or REST request: the queued fault for its service, else the stand-in's answer
        (503 without --postgres: faults still work there, for the HTTP client's own tests). Bodies are not
        recorded (Auth's carry passwords and tokens), only their size."""
        service = supabase_service(url.path)
        fault = next_fault(service)
        record = {"method": method, "path": url.path, "size": len(body), "fault": fault,
                  "auth_ok": bool(supabase) and supabase.standin.auth_ok(service, self.headers, url.query),
                  "headers": {k: v for k, v in self.headers.items() if k.lower() not in ("authorization", "apikey")}}
        if service == "storage":
            record["object"] = url.path[len("/storage/v1/object/"):]
        elif service == "rest":
            record.update(table=url.path[len("/rest/v1/"):], query=url.query)
        else:
            record.update(route=url.path[len("/auth/v1/"):], query=url.query)
        with lock:
            received.append(record)

        def answer():
            if supabase is None:
                return Reply(503, NEEDS_POSTGRES)
            if service == "storage":
                return supabase.storage.handle(method, record["object"], self.headers, body)
            if service == "auth":
                return supabase.standin.auth.handle(method, record["route"], url.query, self.headers, body)
            return supabase.rest.handle(method, record["table"], url.query, self.headers, body)

        if fault.startswith("cut"):
            return self.cut(answer(), fault)
        return self.fault(fault, lambda: self.send_reply(answer()))

    def send_reply(self, answer):
        self.reply(answer.status, answer.data(), answer.headers, answer.content_type)

    def cut(self, answer, fault):
        """Sends the head and the first bytes of the body (half, or BYTES from cut:BYTES), then closes the
        connection: the client has those bytes and knows the rest is missing (curl: error 18)."""
        data = answer.data()
        keep = int(fault.split(":")[1]) if ":" in fault else len(data) // 2
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in answer.headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data[:keep])
        self.wfile.flush()
        self.close_connection = True


def is_supabase(path):
    return path.startswith(("/storage/v1/object/", "/rest/v1/", "/auth/v1/"))


def supabase_service(path):
    return "storage" if path.startswith("/storage/") else "auth" if path.startswith("/auth/") else "rest"


def start_supabase(args):
    """The stand-in with its own database; exits with the reason when the cluster is not there."""
    import supabase_standin  # first: it puts Tests/Group (groupdb) on the path
    import groupdb
    import postgrest
    import storage_api
    cluster = groupdb.Cluster(args.postgres, args.pg_port, args.pg_user)
    cluster.check_reachable()
    standin = supabase_standin.SupabaseStandIn(cluster, jwt_expiry=args.jwt_expiry,
                                               reuse_interval=args.refresh_token_reuse_interval,
                                               autoconfirm=not args.no_autoconfirm)
    return SimpleNamespace(standin=standin, rest=postgrest.PostgREST(standin), storage=storage_api.StorageAPI(standin))


def main():
    global supabase, openai
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--postgres", metavar="SOCKET_DIR", help="the cluster's socket folder (postgres.sh env)")
    parser.add_argument("--pg-port", type=int, default=5432, help="the port that names the cluster's socket")
    parser.add_argument("--pg-user", default="postgres", help="the cluster's superuser")
    parser.add_argument("--openai-models", default=",".join(openai_api.MODELS),
                        help="the models the OpenAI stand-in knows; any other is 404 model_not_found")
    parser.add_argument("--jwt-expiry", type=int, default=3600, metavar="SECONDS",
                        help="how long Auth's access tokens last (Auth's default: 3600)")
    parser.add_argument("--refresh-token-reuse-interval", type=int, default=10, metavar="SECONDS",
                        help="how long a used refresh token may be used again (the default of new projects: 10)")
    parser.add_argument("--no-autoconfirm", action="store_true",
                        help="sign-ups wait for an email confirmation (none is ever sent) instead of signing in")
    parser.add_argument("--keep-running", action="store_true",
                        help="do not stop when standard input closes (only on SIGTERM or SIGINT)")
    args = parser.parse_args()
    openai = openai_api.OpenAIStandIn(models=args.openai_models.split(","))
    if args.postgres:
        supabase = start_supabase(args)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    if supabase:
        scheme = "https" if args.cert else "http"
        supabase.standin.issuer = f"{scheme}://127.0.0.1:{server.server_address[1]}/auth/v1"
    print(f"PORT {server.server_address[1]}", flush=True)
    if not args.keep_running:
        # Stop when the test that started us goes away (its end of our stdin closes).
        threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
    # SIGTERM (the test's process.terminate()) ends serving the same way, so the database is dropped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if supabase:
            supabase.standin.close()


if __name__ == "__main__":
    main()
