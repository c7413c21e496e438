#!/usr/bin/env python3
"""Local stand-ins for the cloud services SnapStation talks to, speaking their real wire formats.

    python3 Tests/Fakes/fake_services.py [--cert CERT --key KEY]

Binds 127.0.0.1 on a free port and prints "PORT <n>". Serves:
  POST /v1/chat/completions             OpenAI chat completions (Bearer test-key), json_schema answers
  POST /storage/v1/object/<bucket>/<p>  Supabase Storage upload (apikey + Bearer test-key)
  POST /rest/v1/<table>                 Supabase REST (PostgREST) insert, unique (group_name, day) -> 409
  GET  /rest/v1/<table>?...             PostgREST select with eq. filters
Control, for tests:
  POST /_control/faults  {"openai": ["429:2", "ok"], "storage": [...], "rest": [...]}  queue behaviours
  GET  /_requests        what was received (no secrets)
Faults: ok, 401, 429:SECONDS, 500, 503, timeout, reset, drip, malformed, refusal, offschema, mismatch.
"""
import argparse
import base64
import json
import socket
import ssl
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

KEY = "test-key"
lock = threading.Lock()
faults = {"openai": [], "storage": [], "rest": []}
received = []
objects = {}
rows = []

MEAL = {
    "title": "Spaghetti with tomato sauce",
    "calories": 650, "protein": 24, "carbs": 80, "fats": 22,
    "items": [
        {"name": "Spaghetti", "grams": 200, "calories": 320, "protein": 11, "carbs": 64, "fats": 2, "contains": ["gluten"]},
        {"name": "Tomato sauce", "grams": 150, "calories": 210, "protein": 3, "carbs": 15, "fats": 11, "contains": []},
        {"name": "Parmesan", "grams": 30, "calories": 120, "protein": 10, "carbs": 1, "fats": 9,
         "contains": ["dairy", "lactose"]},
    ],
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

    def reply(self, status, payload, headers=()):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
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
            # Linger 0 turns close into a TCP reset; the reader must close first, or Python keeps the socket.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.rfile.close()
            self.connection.close()
            self.close_connection = True
            return None
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

    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/_requests":
            with lock:
                return self.reply(200, received)
        if url.path.startswith("/rest/v1/"):
            query = parse_qs(url.query)
            match = [r for r in rows if all(
                str(r.get(k)) == v[0][3:] for k, v in query.items() if v[0].startswith("eq."))]
            return self.reply(200, match)
        self.reply(404, {"error": "not found"})

    def do_POST(self):
        url = urlparse(self.path)
        body = self.body()
        auth_ok = self.headers.get("Authorization") == f"Bearer {KEY}"
        record = {"method": "POST", "path": url.path, "size": len(body), "auth_ok": auth_ok,
                  "headers": {k: v for k, v in self.headers.items() if k.lower() not in ("authorization", "apikey")}}
        if url.path == "/_control/faults":
            with lock:
                for service, items in json.loads(body).items():
                    faults[service].extend(items)
            return self.reply(200, {"ok": True})
        if url.path == "/_control/reset":
            with lock:
                for queue in faults.values():
                    queue.clear()
                received.clear(), objects.clear(), rows.clear()
            return self.reply(200, {"ok": True})
        if url.path == "/v1/chat/completions":
            return self.chat(body, record, auth_ok)
        if url.path.startswith("/storage/v1/object/"):
            return self.storage(url.path[len("/storage/v1/object/"):], body, record, auth_ok)
        if url.path.startswith("/rest/v1/"):
            return self.rest(url.path[len("/rest/v1/"):], body, record, auth_ok)
        self.reply(404, {"error": "not found"})

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
        return self.fault(fault, lambda: answer(json.dumps(MEAL)))

    def storage(self, path, body, record, auth_ok):
        fault = next_fault("storage")
        record.update(fault=fault, object=path)
        with lock:
            received.append(record)
        if not auth_ok or self.headers.get("apikey") != KEY:
            return self.reply(400, {"statusCode": "403", "error": "Unauthorized", "message": "Invalid JWT"})

        def ok():
            upsert = self.headers.get("x-upsert") == "true"
            with lock:
                if path in objects and not upsert:
                    return self.reply(400, {"statusCode": "409", "error": "Duplicate",
                                            "message": "The resource already exists"})
                objects[path] = body
            return self.reply(200, {"Key": path})

        return self.fault(fault, ok)

    def rest(self, table, body, record, auth_ok):
        fault = next_fault("rest")
        record.update(fault=fault, table=table)
        with lock:
            received.append(record)
        if not auth_ok or self.headers.get("apikey") != KEY:
            return self.reply(401, {"message": "Invalid API key"})

        def ok():
            row = json.loads(body)
            with lock:
                if any(r["group_name"] == row["group_name"] and r["day"] == row["day"] for r in rows):
                    return self.reply(409, {"code": "23505", "message":
                                            'duplicate key value violates unique constraint "one_photo_per_day"'})
                rows.append(row)
            return self.reply(201, b"")

        return self.fault(fault, ok)


def jpeg_size(data):
    index = 2
    while index < len(data):
        marker, length = data[index + 1], int.from_bytes(data[index + 2:index + 4], "big")
        if 0xC0 <= marker <= 0xC2:
            return int.from_bytes(data[index + 7:index + 9], "big"), int.from_bytes(data[index + 5:index + 7], "big")
        index += 2 + length
    raise ValueError("no frame header")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"PORT {server.server_address[1]}", flush=True)
    # Stop when the test that started us goes away (its end of our stdin closes).
    threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
