#!/usr/bin/env python3
"""Local stand-ins for the cloud services SnapStation talks to, speaking their real wire formats.

    python3 Tests/Fakes/fake_services.py [--cert CERT --key KEY] [--port N]
                                         [--postgres SOCKET_DIR [--pg-port 5432] [--pg-user postgres]]

Binds 127.0.0.1 on a free port and prints "PORT <n>" once it is ready. Serves:
  POST /v1/chat/completions             OpenAI chat completions (Bearer test-key), json_schema answers
  /storage/v1/object/...                Supabase Storage: upload, download (Range), delete
  /rest/v1/<table>                      Supabase REST (PostgREST): select with filters, insert, update, delete
The Supabase routes run in a fresh database of the PostgreSQL cluster given with --postgres
(Tests/Group/postgres.sh), with docs/supabase/schema.sql loaded, as the caller's role and JWT: the
constraints, the member cap and row-level security answer for real (supabase_standin.py, postgrest.py,
storage_api.py). Without --postgres they answer 503.
Control, for tests:
  POST /_control/faults  {"openai": ["429:2", "ok"], "storage": [...], "rest": [...]}  queue behaviours
  GET  /_requests        what was received (no secrets)
  POST /_control/reset   forget faults and requests (and every Supabase row, member and object)
  POST /_control/sink    reads any body and answers 200 {"size": n}
  POST /_control/member {"group", "name"[, "user_id"]}, POST /_control/age {"hours"}, POST /_control/expire,
  GET /_control/objects, GET /_control/rows   the Supabase side door (supabase_standin.py)
Faults: ok, 401, 429:SECONDS, 500, 503, timeout, reset, drip, malformed, refusal, offschema, mismatch,
overflow, manyitems, huge (OpenAI only), and
cut[:BYTES] (Supabase: send the head and part of the body, then close: a download cut short).
"""
import argparse
import base64
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

from reply import Reply

KEY = "test-key"
lock = threading.Lock()
faults = {"openai": [], "storage": [], "rest": []}
received = []
supabase = None  # the stand-in's parts (standin, rest, storage) when started with --postgres
NEEDS_POSTGRES = {"message": "the Supabase stand-in needs --postgres"}

MEAL = {
    "title": "Spaghetti with tomato sauce",
    "calories": 650, "protein": 24, "carbs": 80, "fats": 22,
    "items": [
        {"name": "Spaghetti", "grams": 200, "calories": 320, "protein": 11, "carbs": 64, "fats": 2, "contains": ["gluten"],
         "ingredients": []},
        {"name": "Tomato sauce", "grams": 150, "calories": 210, "protein": 3, "carbs": 15, "fats": 11, "contains": [],
         "ingredients": [{"name": "Tomatoes", "amount": 120, "unit": "g"}, {"name": "Olive oil", "amount": 15, "unit": "ml"},
                         {"name": "Garlic", "amount": 1, "unit": "piece"}]},
        {"name": "Parmesan", "grams": 30, "calories": 120, "protein": 10, "carbs": 1, "fats": 9,
         "contains": ["dairy", "lactose"], "ingredients": []},
    ],
    "fun_fact": "Spaghetti is Italian for 'little strings'.",
}


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
        self.wfile.write(data)

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
        if fault == "drip":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            for _ in range(30):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(1)
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
        self.reply(404, {"error": "not found"})

    def do_DELETE(self):
        self.route_supabase_only("DELETE")

    def do_PATCH(self):
        self.route_supabase_only("PATCH")

    def route_supabase_only(self, method):
        url = urlparse(self.path)
        body = self.body()
        if is_supabase(url.path):
            return self.supabase(method, url, body)
        self.reply(404, {"error": "not found"})

    def do_POST(self):
        url = urlparse(self.path)
        body = self.body()
        auth_ok = self.headers.get("Authorization") == f"Bearer {KEY}"
        record = {"method": "POST", "path": url.path, "size": len(body), "auth_ok": auth_ok,
                  "headers": {k: v for k, v in self.headers.items() if k.lower() not in ("authorization", "apikey")}}
        if url.path == "/_control/faults/clear":  # the faults queued and not yet met, forgotten
            with lock:
                for items in faults.values():
                    items.clear()
            return self.reply(200, {"ok": True})
        if url.path == "/_control/faults":
            with lock:
                for service, items in json.loads(body).items():
                    faults[service].extend(items)
            return self.reply(200, {"ok": True})
        if url.path.startswith("/_control/"):
            return self.control("POST", url.path, body)
        if url.path == "/v1/chat/completions":
            return self.chat(body, record, auth_ok)
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

    def chat(self, body, record, auth_ok):
        fault = next_fault("openai")
        try:
            request = json.loads(body)
            format_ = request["response_format"]
            assert format_["type"] == "json_schema" and format_["json_schema"]["strict"] is True
            image = next(part["image_url"] for message in request["messages"] if isinstance(message["content"], list)
                         for part in message["content"] if part["type"] == "image_url")
            prefix = "data:image/jpeg;base64,"
            assert image["url"].startswith(prefix)
            jpeg = base64.b64decode(image["url"][len(prefix):])
            assert jpeg[:2] == b"\xff\xd8"
            width, height = jpeg_size(jpeg)
            record.update(model=request["model"], detail=image.get("detail"), image_bytes=len(jpeg),
                          image_size=[width, height], prompt=" ".join(
                              part.get("text", "") if isinstance(part, dict) else part
                              for message in request["messages"]
                              for part in (message["content"] if isinstance(message["content"], list)
                                           else [message["content"]])))
        except Exception as error:  # a request the real service would refuse
            record["bad_request"] = str(error)
            with lock:
                received.append(record)
            return self.reply(400, {"error": {"message": f"bad request: {error}"}})
        record["fault"] = fault
        with lock:
            received.append(record)
        if not auth_ok:
            return self.fault("401", None)

        def answer(content=None, refusal=None):
            message = {"role": "assistant", "content": content, "refusal": refusal}
            return self.reply(200, {
                "id": "chatcmpl-test", "object": "chat.completion", "model": request["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 120, "completion_tokens": 80, "total_tokens": 200}})

        if fault == "malformed":
            return answer("this is not json {")
        if fault == "refusal":
            return answer(refusal="I can't help with identifying that.")
        if fault == "offschema":
            return answer(json.dumps({"title": "Soup", "calories": -5, "protein": 1}))
        if fault == "mismatch":
            meal = dict(MEAL, calories=2400)
            return answer(json.dumps(meal))
        if fault == "overflow":  # numbers that sum past Int64 (seen from a misbehaving service)
            item = dict(MEAL["items"][0], calories=4 * 10**18)
            return answer(json.dumps(dict(MEAL, calories=8 * 10**18, items=[item, item])))
        if fault == "manyitems":
            item = {"name": "x", "grams": 1, "calories": 0, "protein": 0, "carbs": 0, "fats": 0, "contains": []}
            return answer(json.dumps(dict(MEAL, calories=0, protein=0, carbs=0, fats=0, items=[item] * 1000)))
        if fault == "huge":  # a 20 MB answer
            return answer(json.dumps(dict(MEAL, title="x" * (20 << 20))))
        return self.fault(fault, lambda: answer(json.dumps(MEAL)))

    def supabase(self, method, url, body):
        """A Storage or REST request: the queued fault for its service, else the stand-in's answer (503
        without --postgres: faults still work there, for the HTTP client's own tests)."""
        storage = url.path.startswith("/storage/")
        fault = next_fault("storage" if storage else "rest")
        record = {"method": method, "path": url.path, "size": len(body), "fault": fault,
                  "auth_ok": bool(supabase) and supabase.standin.auth_ok(self.headers),
                  "headers": {k: v for k, v in self.headers.items() if k.lower() not in ("authorization", "apikey")}}
        if storage:
            record["object"] = url.path[len("/storage/v1/object/"):]
        else:
            record.update(table=url.path[len("/rest/v1/"):], query=url.query)
        with lock:
            received.append(record)

        def answer():
            if supabase is None:
                return Reply(503, NEEDS_POSTGRES)
            if storage:
                return supabase.storage.handle(method, record["object"], self.headers, body)
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
    return path.startswith("/storage/v1/object/") or path.startswith("/rest/v1/")


def start_supabase(args):
    """The stand-in with its own database; exits with the reason when the cluster is not there."""
    import supabase_standin  # first: it puts Tests/Group (groupdb) on the path
    import groupdb
    import postgrest
    import storage_api
    cluster = groupdb.Cluster(args.postgres, args.pg_port, args.pg_user)
    cluster.check_reachable()
    standin = supabase_standin.SupabaseStandIn(cluster)
    return SimpleNamespace(standin=standin, rest=postgrest.PostgREST(standin), storage=storage_api.StorageAPI(standin))


def jpeg_size(data):
    index = 2
    while index < len(data):
        marker, length = data[index + 1], int.from_bytes(data[index + 2:index + 4], "big")
        if 0xC0 <= marker <= 0xC2:
            return int.from_bytes(data[index + 7:index + 9], "big"), int.from_bytes(data[index + 5:index + 7], "big")
        index += 2 + length
    raise ValueError("no frame header")


def main():
    global supabase
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--postgres", metavar="SOCKET_DIR", help="the cluster's socket folder (postgres.sh env)")
    parser.add_argument("--pg-port", type=int, default=5432, help="the port that names the cluster's socket")
    parser.add_argument("--pg-user", default="postgres", help="the cluster's superuser")
    args = parser.parse_args()
    if args.postgres:
        supabase = start_supabase(args)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"PORT {server.server_address[1]}", flush=True)
    # Stop when the test that started us goes away (its end of our stdin closes).
    threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
    # SIGTERM (the test's process.terminate()) ends serving the same way, so the database is dropped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if supabase:
            supabase.standin.close()


if __name__ == "__main__":
    main()
