"""The stand-in for OpenAI's POST /v1/chat/completions: it refuses what OpenAI refuses, in OpenAI's order
and words, and otherwise answers with a meal that follows the request's schema.

What it holds a request to, and where each rule comes from:
  - the Bearer key, before anything else (401 invalid_api_key);
  - a JSON body, only the spec's parameters (openai/openai-openapi openapi.yaml, CreateChatCompletionRequest
    with CreateModelResponseProperties and ModelResponseProperties), and a model from the allowed list
    (404 model_not_found);
  - gpt-5 and o-series models: no `max_tokens`, no temperature but 1 (unsupported_parameter,
    unsupported_value); the spec's ranges: temperature 0..2, max_completion_tokens >= 1;
  - messages: roles the spec names, text and image_url parts, images only from the user, `detail` auto,
    low or high (ChatCompletionRequestMessageContentPartImage), a base64 data URL of a PNG, JPEG, GIF or
    WebP that decodes (image_parse_error, invalid_image_format);
  - response_format text, json_object or json_schema; a json_schema's name [a-zA-Z0-9_-]{1,64}
    (ResponseFormatJsonSchema); with strict, the structured-outputs rules the SDK also enforces
    (openai-python src/openai/lib/_pydantic.py, `_ensure_strict_json_schema`): every object closes with
    additionalProperties false and requires every property, and every schema names a type.
The rules themselves are in openai_rules.py. A queued fault (openai_faults.py) is answered after those checks, as the real service fails after reading
a valid request. Every request is recorded with its wire key order, as Swift's JSONSerialization cannot
keep it for a test to read.
"""
import json
import math
import time
import uuid

import openai_faults as faults
from openai_rules import (PARAMETERS, Refused, bad_request, check_messages, check_number, check_response_format,
                          decode_data_url, jpeg_size)
from reply import Reply

KEY = "test-key"
MODELS = ("gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-5", "gpt-5-mini", "o4-mini")
# Models whose requests take max_completion_tokens and the default temperature only.
REASONING_PREFIXES = ("gpt-5", "o1", "o3", "o4")

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

# The same meal as a model writes it when the instructions ask for another language (the station asks for
# its own: "Write the title, the item names, … in German"); the keys, the "contains" tags and the units
# stay as the schema gives them.
TRANSLATED = {
    "German": ("Spaghetti mit Tomatensoße", ["Spaghetti", "Tomatensoße", "Parmesan"],
               ["Tomaten", "Olivenöl", "Knoblauch"],
               "Spaghetti heißt auf Italienisch „Schnürchen“."),
    "Spanish": ("Espaguetis con salsa de tomate", ["Espaguetis", "Salsa de tomate", "Parmesano"],
                ["Tomates", "Aceite de oliva", "Ajo"],
                "«Spaghetti» significa «cordelitos» en italiano."),
    "French": ("Spaghettis à la sauce tomate", ["Spaghettis", "Sauce tomate", "Parmesan"],
               ["Tomates", "Huile d'olive", "Ail"],
               "« Spaghetti » veut dire « petites ficelles » en italien."),
    "Italian": ("Spaghetti al pomodoro", ["Spaghetti", "Salsa di pomodoro", "Parmigiano"],
                ["Pomodori", "Olio d'oliva", "Aglio"],
                "«Spaghetti» vuol dire «piccoli spaghi»."),
}


def meal_in(language):
    """MEAL with its texts in `language` (English's name), or MEAL itself."""
    if language not in TRANSLATED:
        return MEAL
    title, items, ingredients, fact = TRANSLATED[language]
    meal = json.loads(json.dumps(MEAL))
    meal["title"], meal["fun_fact"] = title, fact
    for item, name in zip(meal["items"], items):
        item["name"] = name
    # The units are the schema's enum (g, ml, piece): a model keeps them, and the page names them.
    for ingredient, name in zip(meal["items"][1]["ingredients"], ingredients):
        ingredient["name"] = name
    return meal


def asked_language(request):
    """The language the instructions ask the answer in ("… and the fun fact in German, …"), or None."""
    for message in request.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        texts = [content] if isinstance(content, str) else [
            part.get("text", "") for part in content or [] if isinstance(part, dict)]
        for text in texts:
            for language in ("English", *TRANSLATED):
                if f"fun fact in {language}" in (text or ""):
                    return language
    return None


def correction_of(request):
    """A correction's turns, as a chat goes on: the model's first answer (its JSON) and, after it, what the
    person said (the quoted sentence); None for a first question."""
    messages = [m for m in request.get("messages") or [] if isinstance(m, dict)]
    for index, message in enumerate(messages):
        if message.get("role") != "assistant" or not isinstance(message.get("content"), str):
            continue
        after = messages[index + 1] if index + 1 < len(messages) else {}
        said = after.get("content") if isinstance(after.get("content"), str) else ""
        try:
            first = json.loads(message["content"])
        except ValueError:
            return None
        quoted = said.split('"')
        return first, quoted[1] if len(quoted) > 2 else said
    return None


def corrected(first, sentence):
    """What the stand-in's model answers to a correction, by a rule a test can predict (a real model reads
    the sentence; this one only reads "no X"): the first answer without the items the sentence says there
    were none of, its totals the sums of what is left."""
    said = sentence.lower()
    meal = dict(first)
    meal["items"] = [item for item in first.get("items", []) if f"no {item.get('name', '').lower()}" not in said]
    for key in ("calories", "protein", "carbs", "fats"):
        meal[key] = sum(item.get(key, 0) for item in meal["items"])
    return meal


# A planned meal (the station's "meal_plan" schema): each ingredient's amount for ONE portion, as the
# station asks, in the units the request's schema allows. A gluten-free household gets gluten-free pasta.
PLAN_METRIC = [("Spaghetti", 100, "g"), ("Minced beef", 125, "g"), ("Tomato passata", 150, "ml"),
               ("Onion", 0.5, "piece"), ("Olive oil", 0.5, "tbsp")]
PLAN_US = [("Spaghetti", 3.5, "oz"), ("Ground beef", 4.5, "oz"), ("Tomato sauce", 0.625, "cup"),
           ("Onion", 0.5, "piece"), ("Olive oil", 0.5, "tbsp")]
PLAN_NAMES = {"German": ["Spaghetti", "Rinderhackfleisch", "Passierte Tomaten", "Zwiebel", "Olivenöl"]}


def plan_for(request):
    """The stand-in's answer to a planned meal, by rules a test can predict: the quoted name as the title, the
    units of the request's schema (US if it allows "oz"), gluten-free spaghetti where the instructions say
    the household eats gluten-free, and the names in German where asked."""
    texts = [m.get("content") for m in request.get("messages") or [] if isinstance(m, dict)]
    texts = [t for t in texts if isinstance(t, str)]
    said = " ".join(texts)
    quoted = said.split('The meal: "', 1)[1].split('"', 1)[0] if 'The meal: "' in said else "A meal"
    schema = strict_schema(request) or {}
    unit_enum = (((schema.get("properties") or {}).get("ingredients") or {}).get("items") or {})
    unit_enum = ((unit_enum.get("properties") or {}).get("unit") or {}).get("enum") or []
    lines = PLAN_US if "oz" in unit_enum else PLAN_METRIC
    gluten_free = "eats gluten-free" in said or "gluten-free and" in said or "and gluten-free" in said
    names = [name for name, _, _ in lines]
    for language, translated in PLAN_NAMES.items():
        if f"ingredients' names in {language}" in said:
            names = list(translated)
    if gluten_free:
        names[0] = "Glutenfreie Spaghetti" if names == PLAN_NAMES["German"] else "Gluten-free spaghetti"
    return {"title": quoted[:1].upper() + quoted[1:],
            "contains": ["meat"] if gluten_free else ["gluten", "meat"],
            "ingredients": [{"name": name, "amount_per_portion": amount, "unit": unit}
                            for name, (_, amount, unit) in zip(names, lines)]}


def described(request):
    """A meal described in a sentence ('The person says they ate: "…"', no image): by a rule a test can predict
    (a real model reads the sentence; this one splits it), one item of 100 g, 150 kcal, 6 g protein, 15 g carbs
    and 7 g fats for each part the sentence names between commas and "and", the sentence as the title;
    None for any other request."""
    said = ""
    for message in request.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            return None
        if 'The person says they ate: "' in content:
            said = content.split('The person says they ate: "', 1)[1].rsplit('"', 1)[0]
    if not said:
        return None
    parts = [part.strip() for chunk in said.split(",") for part in chunk.split(" and ") if part.strip()]
    items = [{"name": part[:1].upper() + part[1:], "grams": 100, "calories": 150, "protein": 6, "carbs": 15,
              "fats": 7, "contains": [], "ingredients": []} for part in parts[:10]]
    meal = {"title": (said[:1].upper() + said[1:])[:60], "items": items, "fun_fact": "Described, not seen."}
    for key in ("calories", "protein", "carbs", "fats"):
        meal[key] = sum(item[key] for item in items)
    return meal


def is_plan(request):
    return ((request.get("response_format") or {}).get("json_schema") or {}).get("name") == "meal_plan"


class OpenAIStandIn:
    def __init__(self, key=KEY, models=MODELS):
        self.key = key
        self.models = tuple(models)

    def handle(self, headers, body, fault, record):
        """The answer to one request: a Reply, or the name of a transport fault (timeout, reset, drip) for
        the HTTP handler to play. `record` receives what a test may inspect."""
        record["fault"] = fault
        request = self.read(body, record)
        try:
            self.authorize(headers)
            if request is None:
                # OpenAI's answer to a body that is not JSON: 400, param and code null.
                raise bad_request("We could not parse the JSON body of your request. (HINT: This likely means you "
                                  "aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, "
                                  "but what was sent was not valid JSON.)")
            self.validate(request)
        except Refused as refusal:
            if refusal.reply.status == 400:
                record["bad_request"] = str(refusal)
            record["status"] = refusal.reply.status
            return refusal.reply
        if fault in faults.TRANSPORT:
            return fault
        reply = faults.queued(fault, request["model"]) or self.answer(request, fault)
        record["status"] = reply.status
        return reply

    def list_models(self, headers, record):
        """GET /v1/models (openai/openai-openapi openapi.yaml, `listModels`): a `ListModelsResponse`,
        `{"object": "list", "data": [Model]}`, each `Model` its `id`, `object` "model", `created` (Unix
        seconds) and `owned_by`; the key checked as for every request (401 without one or with a wrong one)."""
        try:
            self.authorize(headers)
        except Refused as refusal:
            record["status"] = refusal.reply.status
            return refusal.reply
        record["status"] = 200
        return Reply(200, {"object": "list", "data": [
            {"id": model, "object": "model", "created": 1_715_367_049, "owned_by": "system"} for model in self.models]})

    def authorize(self, headers):
        value = headers.get("Authorization")
        if not value:
            raise Refused(faults.no_key())
        if value != f"Bearer {self.key}":
            raise Refused(faults.unauthorized(value.removeprefix("Bearer ").strip()))

    @staticmethod
    def read(body, record):
        """The request as JSON (None if it is not), with what the tests look at put into `record`."""
        try:
            request = json.loads(body)
        except ValueError:
            return None
        if not isinstance(request, dict):
            return None
        try:
            describe(request, record)
        except (AttributeError, TypeError):  # a request of the wrong shape: validate() names what is wrong
            pass
        return request

    def validate(self, request):
        for name in request:
            if name not in PARAMETERS:
                raise bad_request(f"Unrecognized request argument supplied: {name}")
        model = request.get("model")
        if not model:
            raise bad_request("you must provide a model parameter")
        if model not in self.models:
            raise Refused(faults.model_not_found(model))
        if "messages" not in request:
            raise bad_request("Missing required parameter: 'messages'.", "messages", "missing_required_parameter")
        if model.startswith(REASONING_PREFIXES):
            if "max_tokens" in request:
                raise Refused(faults.unsupported_max_tokens())
            if request.get("temperature") not in (None, 1):
                raise Refused(faults.unsupported_temperature(request["temperature"]))
        check_number(request, "temperature", 0, 2, decimal=True)
        check_number(request, "max_completion_tokens", 1, None)
        check_number(request, "max_tokens", 1, None)
        check_messages(request["messages"])
        check_response_format(request.get("response_format"))

    def answer(self, request, fault):
        """A completion for a request that passed: the meal in the schema's key order, or the odd answer a
        queued fault asks for."""
        schema = strict_schema(request)
        asked = meal_in(asked_language(request))
        correction = correction_of(request)
        if correction:
            asked = corrected(*correction)
        if is_plan(request):
            asked = plan_for(request)
        elif described(request):
            asked = described(request)
        meal = conform(asked, schema) if schema else asked
        content, finish, refusal = json.dumps(meal), "stop", None
        if fault == "refusal":
            content, refusal = None, "I can't help with identifying that."
        elif fault == "malformed":
            content = "this is not json {"
        elif fault == "offschema":
            content = json.dumps({"title": "Soup", "calories": -5, "protein": 1})
        elif fault == "mismatch":
            content = json.dumps(dict(meal, calories=2400))
        elif fault == "overflow":  # numbers that sum past Int64 (seen from a misbehaving service)
            item = dict(MEAL["items"][0], calories=4 * 10**18)
            content = json.dumps(dict(MEAL, calories=8 * 10**18, items=[item, item]))
        elif fault == "manyitems":
            item = {"name": "x", "grams": 1, "calories": 0, "protein": 0, "carbs": 0, "fats": 0, "contains": []}
            content = json.dumps(dict(MEAL, calories=0, protein=0, carbs=0, fats=0, items=[item] * 1000))
        elif fault == "huge":  # a 20 MB answer
            content = json.dumps(dict(MEAL, title="x" * (20 << 20)))
        elif fault == "content_filter":  # the spec's finish_reason for content the filters withheld
            content, finish = None, "content_filter"
        elif fault == "null_content":
            content = None
        elif fault == "length":  # cut off at max_completion_tokens: the JSON ends half way
            content, finish = content[:len(content) // 2], "length"
        limit = request.get("max_completion_tokens") or request.get("max_tokens")
        completion_tokens = limit if finish == "length" and limit else max(1, math.ceil(len(content or "") / 4))
        return Reply(200, {
            "id": f"chatcmpl-{uuid.uuid4().hex[:29]}", "object": "chat.completion", "created": int(time.time()),
            "model": request["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "refusal": refusal,
                                                 "annotations": []},
                         "logprobs": None, "finish_reason": finish}],
            "usage": {"prompt_tokens": 120, "completion_tokens": completion_tokens,
                      "total_tokens": 120 + completion_tokens,
                      "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                      "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                                    "accepted_prediction_tokens": 0,
                                                    "rejected_prediction_tokens": 0}},
            "service_tier": "default", "system_fingerprint": "fp_snapstation"},
            [("x-request-id", faults.request_id()), ("openai-processing-ms", "420"),
             *faults.rate_limit_headers("120ms", "36ms", faults.REQUESTS_PER_MINUTE - 1,
                                        faults.TOKENS_PER_MINUTE - 200)])


def describe(request, record):
    """What a test looks at: the key order on the wire, the body without image data, the model, the
    prompt's text, the first image's detail, bytes and size, and the schema's property order."""
    record["key_order"] = list(request)
    record["body"] = without_image_data(request)
    record["model"] = request.get("model")
    texts, images = [], []
    for message in request.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else [content]:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and part.get("type") == "text":
                texts.append(str(part.get("text", "")))
            elif isinstance(part, dict) and isinstance(part.get("image_url"), dict):
                images.append(part["image_url"])
    record["prompt"] = " ".join(texts)
    correction = correction_of(request)
    if correction:
        record["first_answer"], record["correction"] = correction
    if images:
        record["detail"] = images[0].get("detail")
        jpeg = decode_data_url(images[0].get("url"))
        if jpeg is not None:
            record["image_bytes"] = len(jpeg)
            size = jpeg_size(jpeg)
            if size:
                record["image_size"] = list(size)
    schema = ((request.get("response_format") or {}).get("json_schema") or {}).get("schema")
    if isinstance(schema, dict):
        record["schema_order"] = property_order(schema)


def strict_schema(request):
    definition = (request.get("response_format") or {}).get("json_schema") or {}
    schema = definition.get("schema")
    return schema if definition.get("strict") is True and isinstance(schema, dict) else None


def conform(value, schema):
    """`value` as a strict schema lets a model write it: exactly the schema's properties, in its order (the
    model writes keys in schema order), with a plain value where the meal has none."""
    kinds = schema.get("type") if isinstance(schema.get("type"), list) else [schema.get("type")]
    if "object" in kinds:
        source = value if isinstance(value, dict) else {}
        return {key: conform(source.get(key), sub) for key, sub in (schema.get("properties") or {}).items()}
    if "array" in kinds:
        return [conform(item, schema.get("items") or {}) for item in value] if isinstance(value, list) else []
    if value is not None:
        return value
    if schema.get("enum"):
        return schema["enum"][0]
    return {"string": "", "integer": 0, "number": 0, "boolean": False}.get(kinds[0])


def property_order(schema, path="", order=None):
    """Each object's property names in wire order, by path ("" the root, "items" its items' objects)."""
    order = {} if order is None else order
    if not isinstance(schema, dict):
        return order
    properties = schema.get("properties")
    if isinstance(properties, dict):
        order[path] = list(properties)
        for key, sub in properties.items():
            property_order(sub, f"{path}.{key}" if path else key, order)
    if isinstance(schema.get("items"), dict):
        property_order(schema["items"], path, order)
    return order


def without_image_data(request):
    """The request with each data URL's payload replaced by its length: the key order stays, the log stays small."""
    def shorten(value):
        if isinstance(value, dict):
            return {key: shorten(item) for key, item in value.items()}
        if isinstance(value, list):
            return [shorten(item) for item in value]
        if isinstance(value, str) and value.startswith("data:") and "," in value:
            head, _, data = value.partition(",")
            return f"{head},<{len(data)} characters>"
        return value
    return shorten(request)
