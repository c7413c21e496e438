#!/usr/bin/env python3
"""Runs the official OpenAI SDK (the `openai` package from PyPI) against the chat-completions stand-in
(Tests/Fakes/fake_services.py, its OpenAI part in openai_api.py and openai_faults.py): the SDK must send
the station's request, parse the stand-in's answers, meet each error as the exception class and code it
meets from OpenAI, and retry as it retries OpenAI.

    python3 Tests/AI/check_openai_sdk.py [SCHEMA.json] [--image JPEG]

SCHEMA.json is the station's response schema (bare, or inside `json_schema` or a whole `response_format`);
without it, one built here like MealSchema.swift's, in the order the station sends: title, the items (name
first), the totals, the fun fact. Installs the SDK (Tests/AI/requirements.txt) into .build-bench/venv-ai when
this Python lacks it. Prints a line per check and `N passed, N failed`; exits non-zero on a failure.
"""
import argparse
import base64
import copy
import http.client
import importlib.util
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Support"))
from pychecks import check, finish, in_venv  # noqa: E402  (Tests/Support/pychecks.py)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKE = os.path.join(ROOT, "Tests/Fakes/fake_services.py")
IMAGE = os.path.join(ROOT, "Tests/Fuzz/corpus/jpeg/tiny.jpg")
MODELS = ("gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-5", "gpt-5-mini", "o4-mini")
FOOD_TAGS = ["gluten", "lactose", "dairy", "egg", "meat", "fish", "shellfish", "honey"]  # FoodTag.allCases


def ensure_sdk():
    """Runs this script again in .build-bench/venv-ai, with the SDK installed, when this Python lacks it."""
    requirements = os.path.join(os.path.dirname(os.path.abspath(__file__)), "requirements.txt")
    in_venv("venv-ai", ["-r", requirements], lambda: importlib.util.find_spec("openai") is not None)


def closed(properties):
    """A strict object: every property required, in the properties' order, and nothing else allowed."""
    return {"type": "object", "properties": dict(properties), "required": [name for name, _ in properties],
            "additionalProperties": False}


def meal_schema():
    """MealSchema.swift's schema, in the order the station sends it."""
    integer, text = {"type": "integer"}, {"type": "string"}
    ingredient = closed([("name", text), ("amount", {"type": "number"}),
                         ("unit", {"type": "string", "enum": ["g", "ml", "piece"]})])
    item = closed([("name", text), ("grams", integer), ("calories", integer), ("protein", integer),
                   ("carbs", integer), ("fats", integer),
                   ("contains", {"type": "array", "items": {"type": "string", "enum": FOOD_TAGS}}),
                   ("ingredients", {"type": "array", "items": ingredient})])
    return closed([("title", text), ("items", {"type": "array", "items": item}), ("calories", integer),
                   ("protein", integer), ("carbs", integer), ("fats", integer), ("fun_fact", text)])


def read_schema(path):
    with open(path) as file:
        data = json.load(file)
    data = data.get("json_schema", data) if isinstance(data, dict) else data
    return data["schema"] if "schema" in data and "name" in data else data


def differences(before, after, path="schema"):
    """Where `after` differs from `before`, key order included, one line each."""
    if isinstance(before, dict) and isinstance(after, dict):
        found = [] if list(before) == list(after) else [f"{path} keys {list(before)} -> {list(after)}"]
        for key in before.keys() & after.keys():
            found += differences(before[key], after[key], f"{path}.{key}")
        return found
    return [] if before == after else [f"{path}: {json.dumps(before)} -> {json.dumps(after)}"]


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


class Fake:
    """fake_services.py on 127.0.0.1 (a free port); it stops when its standard input closes."""

    def __init__(self):
        self.process = subprocess.Popen([sys.executable, FAKE, "--port", "0"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        expect(line.startswith("PORT "), f"the fake did not start: {line!r}")
        self.port = int(line.split()[1])

    def call(self, method, path, body=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request(method, path, body=None if body is None else json.dumps(body).encode(),
                               headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            connection.close()

    def fresh(self, *openai_faults):
        """Forgets earlier requests and faults, then queues these for the OpenAI stand-in."""
        self.call("POST", "/_control/reset")
        status, answer = self.call("POST", "/_control/faults", {"openai": list(openai_faults)})
        expect(status == 200, f"the fake refused the faults {openai_faults}: {answer}")

    def requests(self):
        return [r for r in self.call("GET", "/_requests")[1] if r["path"] == "/v1/chat/completions"]

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("schema", nargs="?", help="the station's schema as JSON (default: built here)")
    parser.add_argument("--image", default=IMAGE, help="the JPEG sent as the meal photo")
    parser.add_argument("--print-schema", action="store_true",
                        help="print the schema checked here as compact JSON and stop (OpenAIAnalyzerTests compares it "
                             "with MealSchema.swift's, key order included)")
    args = parser.parse_args()
    if args.print_schema:
        print(json.dumps(meal_schema(), separators=(",", ":"), ensure_ascii=False))
        return 0
    ensure_sdk()
    import openai
    from openai.lib._pydantic import _ensure_strict_json_schema

    print(f"openai {openai.__version__} against {FAKE}")
    schema = read_schema(args.schema) if args.schema else meal_schema()
    with open(args.image, "rb") as file:
        data_url = "data:image/jpeg;base64," + base64.b64encode(file.read()).decode()
    fake = Fake()
    try:
        run_checks(fake, openai, _ensure_strict_json_schema, schema, data_url)
    finally:
        fake.close()
    finish()


def run_checks(fake, openai, ensure_strict, schema, data_url):
    base_url = f"http://127.0.0.1:{fake.port}/v1"
    client = openai.OpenAI(api_key="test-key", base_url=base_url, max_retries=0, timeout=10)

    def station_request(model="gpt-4o-mini", response_schema=schema, image=data_url, detail="low", **extra):
        """The request the station sends: system text, user text and image, strict schema, a token cap."""
        return dict(model=model, messages=[
            {"role": "system", "content": "You estimate the nutrition of a meal from one photo."},
            {"role": "user", "content": [{"type": "text", "text": "What is in this meal?"},
                                         {"type": "image_url", "image_url": {"url": image, "detail": detail}}]}],
            response_format={"type": "json_schema", "json_schema": {"name": "meal_analysis", "strict": True,
                                                                    "schema": response_schema}},
            max_completion_tokens=4000, **extra)

    def refused(request, kind, code, using=client):
        """The SDK's exception for `request`, checked for its class and code."""
        try:
            using.chat.completions.create(**request)
        except kind as error:
            expect(error.code == code, f"code {error.code!r}, expected {code!r} ({error.body})")
            return error
        raise AssertionError(f"no {kind.__name__}")

    with check("the SDK sends the station's request and parses the answer, keys in the schema's order"):
        fake.fresh("ok")
        completion = client.chat.completions.create(**station_request())
        choice = completion.choices[0]
        expect(choice.finish_reason == "stop" and choice.message.refusal is None, f"{choice}")
        meal = json.loads(choice.message.content)
        expect(list(meal) == list(schema["properties"]), f"answer keys {list(meal)}")
        item_schema = schema["properties"]["items"]["items"]
        expect(list(meal["items"][0]) == list(item_schema["properties"]), f"item keys {list(meal['items'][0])}")
        record = fake.requests()[-1]
        expect(record.get("status") == 200 and "bad_request" not in record, f"{record.get('bad_request')}")
        expect(record["schema_order"][""] == list(schema["properties"]), f"{record['schema_order']}")
        expect(record["schema_order"]["items"] == list(item_schema["properties"]), f"{record['schema_order']}")
        expect(record["image_size"] and record["detail"] == "low", f"{record}")

    with check(f"every default model takes that request: {', '.join(MODELS)}"):
        for model in MODELS:
            expect(client.chat.completions.create(**station_request(model)).model == model, model)

    with check("the SDK's strict-schema conversion leaves the station's schema unchanged, key order included"):
        converted = ensure_strict(copy.deepcopy(schema), path=(), root=schema)
        changes = differences(schema, converted)
        expect(not changes, "the SDK changed it: " + "; ".join(changes))

    with check("what the SDK's conversion would change, the stand-in refuses: an open item, a missing required"):
        open_item = copy.deepcopy(schema)
        del open_item["properties"]["items"]["items"]["additionalProperties"]
        optional = copy.deepcopy(schema)
        optional["required"] = optional["required"][:-1]
        for changed, context in ((open_item, "('properties', 'items', 'items')"), (optional, "()")):
            expect(ensure_strict(copy.deepcopy(changed), path=(), root=changed) != changed, "the SDK left it")
            error = refused(station_request(response_schema=changed), openai.BadRequestError, "invalid_json_schema")
            expect(f"In context={context}" in error.message and error.param == "response_format", error.message)

    with check("gpt-5 and o-series: max_tokens is unsupported_parameter, temperature 0.2 unsupported_value"):
        error = refused(station_request("gpt-5", max_tokens=1000), openai.BadRequestError, "unsupported_parameter")
        expect(error.param == "max_tokens", error.param)
        error = refused(station_request("o4-mini", temperature=0.2), openai.BadRequestError, "unsupported_value")
        expect("does not support 0.2" in error.message and error.param == "temperature", error.message)
        client.chat.completions.create(**station_request("gpt-5-mini", temperature=1))
        client.chat.completions.create(**station_request("gpt-4o-mini", max_tokens=1000, temperature=0.2))

    with check("an unknown model is NotFoundError model_not_found; a wrong key AuthenticationError"):
        refused(station_request("gpt-9"), openai.NotFoundError, "model_not_found")
        wrong = openai.OpenAI(api_key="sk-wrong-key-000000000", base_url=base_url, max_retries=0)
        refused(station_request(), openai.AuthenticationError, "invalid_api_key", using=wrong)

    with check("the page's try of the service: models.list() gives the stand-in's models; a wrong key is 401"):
        listed = [model.id for model in client.models.list()]
        expect(listed == list(MODELS), f"{listed}")
        expect(all(model.object == "model" and model.owned_by for model in client.models.list()), "Model objects")
        wrong = openai.OpenAI(api_key="sk-wrong-key-000000000", base_url=base_url, max_retries=0)
        try:
            wrong.models.list()
            raise AssertionError("no AuthenticationError")
        except openai.AuthenticationError as error:
            expect(error.code == "invalid_api_key" and "Incorrect API key provided" in error.message, error.message)

    with check("bytes that are no image: image_parse_error; a detail OpenAI lacks, an unknown parameter: 400"):
        refused(station_request(image="data:image/jpeg;base64," + base64.b64encode(b"not a jpeg").decode()),
                openai.BadRequestError, "image_parse_error")
        refused(station_request(detail="medium"), openai.BadRequestError, "invalid_value")
        refused(station_request(extra_body={"max_output_tokens": 10}), openai.BadRequestError, None)

    matrix = [
        ("400_image", openai.BadRequestError, "image_parse_error", {}),
        ("400_image_format", openai.BadRequestError, "invalid_image_format", {}),
        ("400_max_tokens", openai.BadRequestError, "unsupported_parameter", {}),
        ("400_temperature", openai.BadRequestError, "unsupported_value", {}),
        ("400_schema", openai.BadRequestError, "invalid_json_schema", {}),
        ("401", openai.AuthenticationError, "invalid_api_key", {}),
        ("403_region", openai.PermissionDeniedError, "unsupported_country_region_territory", {}),
        ("403_model", openai.PermissionDeniedError, "model_not_found", {}),
        ("404_model", openai.NotFoundError, "model_not_found", {}),
        ("429_quota", openai.RateLimitError, "insufficient_quota",
         {"retry-after": None, "retry-after-ms": None, "x-ratelimit-reset-requests": None}),
        ("429:1", openai.RateLimitError, "rate_limit_exceeded", {"retry-after": "1", "retry-after-ms": None}),
        ("429_ms:1500", openai.RateLimitError, "rate_limit_exceeded",
         {"retry-after-ms": "1500", "retry-after": None, "x-ratelimit-reset-requests": "1.5s"}),
        ("429_ms_ra:1500", openai.RateLimitError, "rate_limit_exceeded",
         {"retry-after-ms": "1500", "retry-after": "2"}),
        ("429_reset:20ms,6m0s", openai.RateLimitError, "rate_limit_exceeded",
         {"retry-after": None, "retry-after-ms": None, "x-ratelimit-reset-requests": "20ms",
          "x-ratelimit-reset-tokens": "6m0s"}),
        ("429_reset:1s,6m0s", openai.RateLimitError, "rate_limit_exceeded",
         {"retry-after": None, "x-ratelimit-reset-requests": "1s"}),
        ("500", openai.InternalServerError, None, {}),
        ("503", openai.InternalServerError, None, {}),
        ("llama_no_mmproj", openai.InternalServerError, "500", {}),
    ]
    for fault, kind, code, headers in matrix:
        with check(f"fault {fault}: {kind.__name__} {code or '(code null)'}"
                   + (f", headers {headers}" if headers else "")):
            fake.fresh(fault)
            error = refused(station_request(), kind, code)
            for name, value in headers.items():
                expect(error.response.headers.get(name) == value,
                       f"{name}: {error.response.headers.get(name)!r}, expected {value!r}")
            if fault != "llama_no_mmproj":  # OpenAI's Error object: all four members, always
                expect(list(error.body) == ["message", "type", "param", "code"], f"{error.body}")
            expect(len(fake.requests()) == 1, "sent more than once")

    def answered(fault, **options):
        fake.fresh(fault)
        return client.with_options(**options).chat.completions.create(**station_request()).choices[0]

    with check("fault content_filter: finish_reason content_filter, no content"):
        choice = answered("content_filter")
        expect(choice.finish_reason == "content_filter" and choice.message.content is None, f"{choice}")
    with check("fault null_content: finish_reason stop, content null"):
        choice = answered("null_content")
        expect(choice.finish_reason == "stop" and choice.message.content is None, f"{choice}")
    with check("fault length: finish_reason length, the JSON cut off"):
        choice = answered("length")
        expect(choice.finish_reason == "length", choice.finish_reason)
        try:
            json.loads(choice.message.content)
            raise AssertionError("the cut answer parsed")
        except json.JSONDecodeError:
            pass
    with check("fault refusal: the SDK's message.refusal, content null"):
        choice = answered("refusal")
        expect(choice.message.refusal == "I can't help with identifying that." and choice.message.content is None,
               f"{choice.message}")
    with check("the older answer faults still answer 200: malformed, offschema, mismatch, overflow, manyitems, huge"):
        for fault in ("malformed", "offschema", "mismatch", "overflow", "manyitems", "huge"):
            expect(answered(fault).message.content, fault)
    with check("the transport faults: reset is APIConnectionError, timeout and drip APITimeoutError"):
        for fault, kind, timeout in (("reset", openai.APIConnectionError, 10), ("timeout", openai.APITimeoutError, 0.5),
                                     ("drip", openai.APITimeoutError, 0.5)):
            try:
                answered(fault, timeout=timeout)
                raise AssertionError(f"{fault}: no error")
            except kind:
                pass
    with check("the fault queue takes every old name and refuses an unknown one"):
        old = ["ok", "401", "429", "429:3", "500", "503", "timeout", "reset", "drip", "malformed", "refusal",
               "offschema", "mismatch", "overflow", "manyitems", "huge"]
        expect(fake.call("POST", "/_control/faults", {"openai": old})[0] == 200, "an old name was refused")
        expect(fake.call("POST", "/_control/faults", {"openai": ["429_soon"]})[0] == 400, "an unknown name passed")
        fake.call("POST", "/_control/faults/clear")

    retrying = client.with_options(max_retries=2)

    def retried(faults, expected_requests, low, high, failure=None):
        fake.fresh(*faults)
        started = time.monotonic()
        try:
            retrying.chat.completions.create(**station_request())
            expect(failure is None, f"no {failure and failure.__name__}")
        except Exception as error:
            if failure is None or not isinstance(error, failure):
                raise
        elapsed, sent = time.monotonic() - started, len(fake.requests())
        expect(sent == expected_requests, f"{sent} requests, expected {expected_requests}")
        expect(low <= elapsed <= high, f"took {elapsed:.2f} s, expected {low}..{high} s")

    with check("the SDK's retry waits retry-after-ms: 1500 ms, then the second request succeeds"):
        retried(["429_ms:1500", "ok"], 2, 1.5, 2.5)
    with check("retry-after-ms 20 is waited as 20 ms, below the SDK's own backoff (>= 375 ms)"):
        retried(["429_ms:20", "ok"], 2, 0.0, 0.3)
    with check("retry-after-ms comes before retry-after (300 ms, not 1 s)"):
        retried(["429_ms_ra:300", "ok"], 2, 0.3, 0.9)
    with check("x-ratelimit-reset-* alone: the SDK ignores them and backs off 375..500 ms"):
        retried(["429_reset:6m0s,6m0s", "ok"], 2, 0.3, 1.0)
    with check("retry-after past 120 s: the SDK does not retry"):
        retried(["429:121"], 1, 0.0, 0.5, openai.RateLimitError)
    with check("insufficient_quota is retried by the SDK (any 429 is): 3 requests"):
        retried(["429_quota", "429_quota", "429_quota"], 3, 0.5, 3.0, openai.RateLimitError)
    with check("a 400 is not retried; a 500 is"):
        retried(["400_image"], 1, 0.0, 0.5, openai.BadRequestError)
        retried(["500", "ok"], 2, 0.3, 1.0)


if __name__ == "__main__":
    main()
