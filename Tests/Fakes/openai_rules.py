"""The request rules of the chat-completions stand-in (openai_api.py): what OpenAI refuses in a request,
in its words, each rule beside the source it follows. A refusal is raised as `Refused` with OpenAI's answer.
"""
import base64
import binascii
import re

import openai_faults as faults
from openai_faults import error, invalid_value

# CreateChatCompletionRequest's properties (openapi.yaml lines 33110-33493) and those of the two schemas it
# extends (CreateModelResponseProperties 35783, ModelResponseProperties 44539).
PARAMETERS = frozenset("""
    messages model service_tier modalities verbosity reasoning_effort max_completion_tokens frequency_penalty
    presence_penalty web_search_options top_logprobs response_format audio store moderation stream stop
    logit_bias logprobs max_tokens n prediction seed stream_options tools tool_choice parallel_tool_calls
    function_call functions prompt_cache_options metadata temperature top_p user safety_identifier
    prompt_cache_key prompt_cache_retention""".split())
ROLES = ("system", "assistant", "user", "function", "tool", "developer")
DETAILS = ("auto", "low", "high")
IMAGE_TYPES = ("png", "jpeg", "gif", "webp")
SCHEMA_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")


class Refused(Exception):
    """The request is one OpenAI answers with `reply`."""

    def __init__(self, reply):
        super().__init__(reply.body["error"]["message"])
        self.reply = reply


def bad_request(message, param=None, code=None):
    return Refused(error(400, message, "invalid_request_error", param, code))


def check_number(request, name, low, high, decimal=False):
    """The spec's type and range for a numeric parameter, refused in OpenAI's words (for example "Invalid
    'temperature': decimal above maximum value. Expected a value <= 2, but got 3 instead.")."""
    if name not in request or request[name] is None:
        return
    value, kind = request[name], "decimal" if decimal else "integer"
    wanted = (int, float) if decimal else int
    if isinstance(value, bool) or not isinstance(value, wanted):
        raise bad_request(f"Invalid type for '{name}': expected {'a decimal' if decimal else 'an integer'}, but got "
                          f"{json_type(value)} instead.", name, "invalid_type")
    if value < low:
        raise bad_request(f"Invalid '{name}': {kind} below minimum value. Expected a value >= {low}, but got "
                          f"{faults.number(value)} instead.", name, f"{kind}_below_min_value")
    if high is not None and value > high:
        raise bad_request(f"Invalid '{name}': {kind} above maximum value. Expected a value <= {high}, but got "
                          f"{faults.number(value)} instead.", name, f"{kind}_above_max_value")


def check_messages(messages):
    """ChatCompletionRequestMessage (openapi.yaml 31361): the six roles, content a string or an array of
    parts; OpenAI's "Invalid value: ... Supported values are: ..." wording as in deep-research-py#19."""
    if not isinstance(messages, list):
        raise bad_request(f"Invalid type for 'messages': expected an array, but got {json_type(messages)} instead.",
                          "messages", "invalid_type")
    if not messages:
        raise bad_request("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an "
                          "empty array instead.", "messages", "empty_array")
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ROLES:
            listed = ", ".join(f"'{r}'" for r in ROLES[:-1]) + f", and '{ROLES[-1]}'"
            raise invalid_value_error(f"{where}.role", f"Invalid value: '{role}'. Supported values are: {listed}.")
        content = message.get("content")
        if isinstance(content, str) or (content is None and role == "assistant"):
            continue
        if not isinstance(content, list):
            raise bad_request(f"Invalid type for '{where}.content': expected one of a string or array of objects, "
                              f"but got {json_type(content)} instead.", f"{where}.content", "invalid_type")
        for number, part in enumerate(content):
            check_part(part, role, where, f"{where}.content[{number}]")


def check_part(part, role, where, path):
    """A user message's part (ChatCompletionRequestUserMessageContentPart, openapi.yaml 31623): text, or an
    image_url whose detail is auto, low or high (ChatCompletionRequestMessageContentPartImage, 31443). A
    system message's parts are text only (31552)."""
    kind = part.get("type") if isinstance(part, dict) else None
    if kind == "text":
        if not isinstance(part.get("text"), str):
            raise bad_request(f"Missing required parameter: '{path}.text'.", f"{path}.text",
                              "missing_required_parameter")
        return
    if kind != "image_url":
        raise invalid_value_error(f"{path}.type", f"Invalid value: '{kind}'. Supported values are: 'text', "
                                                  "'image_url', 'input_audio', 'refusal', and 'file'.")
    if role != "user":
        raise bad_request(f"Invalid '{where}'. Image URLs are only allowed for messages with role 'user', but this "
                          f"message with role '{role}' contains an image URL.", where, "invalid_value")
    image = part.get("image_url")
    if not isinstance(image, dict) or not isinstance(image.get("url"), str):
        raise bad_request(f"Missing required parameter: '{path}.image_url.url'.", f"{path}.image_url.url",
                          "missing_required_parameter")
    detail = image.get("detail", "auto")
    if detail not in DETAILS:
        raise invalid_value_error(f"{path}.image_url.detail",
                                  f"Invalid value: '{detail}'. Supported values are: 'auto', 'low', and 'high'.")
    check_image(image["url"], f"{path}.image_url.url")


def check_image(url, param):
    """A data URL OpenAI reads (OmniSearch#3 for the wording when it is not one); remote URLs are not
    fetched here, and the station never sends one."""
    if url.startswith(("http://", "https://")):
        raise bad_request(f"Error while downloading {url}.", param, "invalid_image_url")
    match = re.match(r"data:image/([a-z+.-]+);base64,", url)
    if not match:
        raise invalid_value_error(param, f"Invalid image URL: '{param}'. Expected a base64-encoded data URL with an "
                                         "image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but "
                                         "got a value without the 'data:' prefix.")
    if match.group(1) not in IMAGE_TYPES + ("jpg",):
        raise Refused(faults.invalid_image_format())
    data = decode_data_url(url)
    if data is None:
        raise Refused(faults.image_parse_error())
    kind = image_kind(data)
    if kind == "other":
        raise Refused(faults.invalid_image_format())
    if kind is None or (kind == "jpeg" and not jpeg_size(data)):
        raise Refused(faults.image_parse_error())


def check_response_format(response_format):
    if response_format is None:
        return
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind not in ("text", "json_object", "json_schema"):
        raise invalid_value_error("response_format.type", f"Invalid value: '{kind}'. Supported values are: "
                                                          "'json_object', 'json_schema', and 'text'.")
    if kind != "json_schema":
        return
    definition = response_format.get("json_schema")
    if not isinstance(definition, dict):  # openai-python#1632
        raise bad_request("Missing required parameter: 'response_format.json_schema'.",
                          "response_format.json_schema", "missing_required_parameter")
    name = definition.get("name")
    if not isinstance(name, str):
        raise bad_request("Missing required parameter: 'response_format.json_schema.name'.",
                          "response_format.json_schema.name", "missing_required_parameter")
    if len(name) > 64:
        raise bad_request(f"Invalid 'response_format.json_schema.name': string too long. Expected a string with "
                          f"maximum length 64, but got a string with length {len(name)} instead.",
                          "response_format.json_schema.name", "string_above_max_length")
    if not SCHEMA_NAME.match(name):  # the pattern quoted by several refused clients (e.g. a 2026-06-01 report)
        raise invalid_value_error("response_format.json_schema.name",
                                  "Invalid 'response_format.json_schema.name': string does not match pattern. "
                                  "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.")
    schema = definition.get("schema")
    if definition.get("strict") is True:
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise Refused(faults.invalid_schema(name, (), "schema must be a JSON Schema of 'type: \"object\"', got "
                                                          f"'type: \"{(schema or {}).get('type')}\"'."))
        check_strict(schema, name, ())


def check_strict(schema, name, path):
    """OpenAI's structured-outputs rules, depth first from the root, as its messages name the context."""
    def refuse(rule):
        raise Refused(faults.invalid_schema(name, path, rule))

    if not isinstance(schema, dict):
        return
    if not ({"type", "anyOf", "$ref", "enum", "const"} & schema.keys()):
        refuse("schema must have a 'type' key.")
    kinds = schema.get("type") if isinstance(schema.get("type"), list) else [schema.get("type")]
    if "object" in kinds:
        properties = schema.get("properties") or {}
        if schema.get("additionalProperties") is not False:
            refuse("'additionalProperties' is required to be supplied and to be false.")
        required = schema.get("required")
        missing = [key for key in properties if not isinstance(required, list) or key not in required]
        if missing:
            refuse("'required' is required to be supplied and to be an array including every key in properties. "
                   f"Missing '{missing[0]}'.")
        extra = [key for key in required or [] if key not in properties]
        if extra:
            refuse(f"'required' is required to be supplied and to be an array including every key in properties. "
                   f"Extra required key '{extra[0]}' supplied.")
        for key, sub in properties.items():
            check_strict(sub, name, path + ("properties", key))
    if isinstance(schema.get("items"), dict):
        check_strict(schema["items"], name, path + ("items",))
    for index, sub in enumerate(schema.get("anyOf") or []):
        check_strict(sub, name, path + ("anyOf", str(index)))
    for keyword in ("$defs", "definitions"):
        for key, sub in (schema.get(keyword) or {}).items():
            check_strict(sub, name, path + (keyword, key))


def invalid_value_error(param, message):
    return Refused(invalid_value(param, message))


def decode_data_url(url):
    if not isinstance(url, str) or not url.startswith("data:") or ";base64," not in url:
        return None
    try:
        return base64.b64decode(url.partition(";base64,")[2], validate=True)
    except (binascii.Error, ValueError):
        return None


def image_kind(data):
    """The format the bytes are in: one OpenAI reads, "other" for a known image format it does not, None for
    bytes that are no image."""
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:2] == b"BM" or data[:4] in (b"II*\x00", b"MM\x00*"):
        return "other"
    return None


def jpeg_size(data):
    """(width, height) from the first frame header, or None when there is none before the scan."""
    index = 2
    while index + 9 <= len(data):
        if data[index] != 0xFF:
            return None
        marker, length = data[index + 1], int.from_bytes(data[index + 2:index + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2):
            return int.from_bytes(data[index + 7:index + 9], "big"), int.from_bytes(data[index + 5:index + 7], "big")
        if marker == 0xDA:
            return None
        index += 2 + length
    return None


def json_type(value):
    if value is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a decimal", str: "a string", list: "an array",
            dict: "an object"}.get(type(value), "a value")
