"""ntfy's publishing and polling, as the station's notices meet them (binwiederhier/ntfy, server/server.go).

    POST /ntfy/                 ntfy's "publish as JSON" at the server's root (`transformBodyJSON`): a JSON body
                                with `topic` (`topicRegex`, ^[-_A-Za-z0-9]{1,64}$), `message` ("triggered" when
                                empty, `emptyMessageBody`), `title`, `tags`, `priority` (1..5), `click`;
                                answers the message as ntfy stores it (`message.go`)
    GET  /ntfy/<topic>/json?poll=1
                                the topic's messages, one JSON object a line (server/server.go `handleSubscribeJSON`
                                with `poll`)
Errors are ntfy's own (server/errors.go): 40017 a body that is not message JSON, 40009 a topic that is not one,
40007 a priority outside 1..5, 40301 a write to a protected topic without its token. Topics named
"locked-..." stand in for a server with `auth-default-access: deny-all`, writable with `Bearer tk_test`.
The stand-in is mounted under /ntfy/ so that the fake's one port serves it beside the others.
"""
import json
import re
import secrets
import threading
import time

from reply import Reply

TOPIC = re.compile(r"^[-_A-Za-z0-9]{1,64}$")  # server/server.go topicRegex
EMPTY_MESSAGE = "triggered"  # server/server.go emptyMessageBody


def error(code, status, text):
    """server/errors.go errHTTP as JSON: code, http, error."""
    return Reply(status, {"code": code, "http": status, "error": text})


class NtfyStandIn:
    def __init__(self):
        self.lock = threading.Lock()
        self.messages = {}  # topic -> [message]

    def reset(self):
        with self.lock:
            self.messages.clear()

    def publish(self, body, headers):
        try:
            sent = json.loads(body)
            if not isinstance(sent, dict):
                raise ValueError
        except ValueError:
            return error(40017, 400, "invalid request: request body must be message JSON")
        topic = sent.get("topic")
        if not isinstance(topic, str) or not TOPIC.match(topic):
            return error(40009, 400, "invalid request: topic invalid")
        if topic.startswith("locked-") and headers.get("Authorization") != "Bearer tk_test":
            return error(40301, 403, "forbidden")
        priority = sent.get("priority", 0)
        if not isinstance(priority, int) or not 0 <= priority <= 5:
            return error(40007, 400, "invalid priority parameter")
        message = {"id": secrets.token_hex(6), "time": int(time.time()), "event": "message", "topic": topic,
                   "message": sent.get("message") or EMPTY_MESSAGE}
        for key in ("title", "tags", "click"):
            if sent.get(key):
                message[key] = sent[key]
        if priority:
            message["priority"] = priority
        with self.lock:
            self.messages.setdefault(topic, []).append(message)
        return Reply(200, message)

    def poll(self, topic):
        if not TOPIC.match(topic):
            return error(40009, 400, "invalid request: topic invalid")
        with self.lock:
            lines = "".join(json.dumps(message) + "\n" for message in self.messages.get(topic, []))
        return Reply(200, lines.encode(), content_type="application/x-ndjson; charset=utf-8")
