"""The error answers of the chat-completions stand-in (openai_api.py): OpenAI's own bodies and headers,
and llama.cpp's, each beside the public answer it follows.

The body is the spec's ErrorResponse (openai/openai-openapi openapi.yaml, `Error`: message, type, param
and code, all four always present, param and code may be null). The official SDK turns the status into
its exception class (openai-python src/openai/_client.py, `_make_status_error`: 400 BadRequestError,
401 AuthenticationError, 403 PermissionDeniedError, 404 NotFoundError, 429 RateLimitError, >= 500
InternalServerError) and reads `code`, `param` and `type` from the body's "error" object.
"""
import math
import re
import uuid

from reply import Reply

# Rate limits of the fake's organization, as the x-ratelimit-* headers state them.
REQUESTS_PER_MINUTE = 500
TOKENS_PER_MINUTE = 200_000


def error(status, message, type_, param=None, code=None, headers=()):
    """An OpenAI error answer: {"error": {"message", "type", "param", "code"}}, in the spec's order."""
    return Reply(status, {"error": {"message": message, "type": type_, "param": param, "code": code}},
                 [("x-request-id", request_id()), *headers])


def request_id():
    return f"req_{uuid.uuid4().hex}"


def go_duration(seconds):
    """A reset time as OpenAI writes it in x-ratelimit-reset-*: "20ms", "1s", "8.64s", "6m0s" (the
    forms seen on the wire: thoughtbot's rate-limit post shows "1s" and "6m0s", open-webui#3743 "120ms";
    the shape is Go's time.Duration String)."""
    if seconds < 1:
        return f"{round(seconds * 1000)}ms"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{secs:.3f}".rstrip("0").rstrip(".") + "s"
    if hours:
        return f"{int(hours)}h{int(minutes)}m{text}"
    return f"{int(minutes)}m{text}" if minutes else text


def rate_limit_headers(reset_requests="1s", reset_tokens="6m0s", remaining_requests=0,
                       remaining_tokens=TOKENS_PER_MINUTE):
    """The six x-ratelimit-* headers every OpenAI answer carries (OpenAI's rate-limit guide; the
    community thread 1268905 lists them from a real chat completion)."""
    return [("x-ratelimit-limit-requests", str(REQUESTS_PER_MINUTE)),
            ("x-ratelimit-limit-tokens", str(TOKENS_PER_MINUTE)),
            ("x-ratelimit-remaining-requests", str(remaining_requests)),
            ("x-ratelimit-remaining-tokens", str(remaining_tokens)),
            ("x-ratelimit-reset-requests", reset_requests),
            ("x-ratelimit-reset-tokens", reset_tokens)]


def rate_limited(model, wait_seconds, headers):
    """429 rate_limit_exceeded on requests per minute (BuilderIO/micro-agent#86, FoundationAgents/MetaGPT#523:
    "Rate limit reached for M in organization O on ... Please try again in T. Visit ... to learn more.",
    type "requests" or "tokens", code rate_limit_exceeded)."""
    return error(429, f"Rate limit reached for {model} in organization org-snapstation on requests per min "
                      f"(RPM): Limit {REQUESTS_PER_MINUTE}, Used {REQUESTS_PER_MINUTE}, Requested 1. Please try "
                      f"again in {go_duration(wait_seconds)}. Visit https://platform.openai.com/account/"
                      "rate-limits to learn more.", "requests", None, "rate_limit_exceeded", headers)


def unauthorized(key):
    """401 for a key OpenAI does not know (timkmecl/chatgpt-vscode#45 and OpenAI's error-code guide: type
    invalid_request_error, code invalid_api_key). The key is masked, and a short one not shown at all."""
    shown = f"{key[:3]}{'*' * (len(key) - 7)}{key[-4:]}" if len(key) > 12 else "****"
    return error(401, f"Incorrect API key provided: {shown}. You can find your API key at "
                      "https://platform.openai.com/account/api-keys.", "invalid_request_error", None,
                 "invalid_api_key")


def no_key():
    """401 without an Authorization header: code null."""
    return error(401, "You didn't provide an API key. You need to provide your API key in an Authorization "
                      "header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field "
                      "(with blank username) if you're accessing the API from your browser and are prompted for "
                      "a username and password. You can obtain an API key from "
                      "https://platform.openai.com/account/api-keys.", "invalid_request_error")


def model_not_found(model):
    """404 for a model that does not exist or that the key may not use (timkmecl/chatgpt-vscode#45)."""
    return error(404, f"The model `{model}` does not exist or you do not have access to it.",
                 "invalid_request_error", None, "model_not_found")


def unsupported_max_tokens():
    """gpt-5 and o-series models refuse `max_tokens` (griptape-ai/ComfyUI-Griptape#312, fish2018/YPrompt#26;
    the spec marks it deprecated and "not compatible with o-series models")."""
    return error(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                      "'max_completion_tokens' instead.", "invalid_request_error", "max_tokens",
                 "unsupported_parameter")


def unsupported_temperature(value):
    """gpt-5 and o-series models take only the default temperature (diffbot/code-gpt-docs#445,
    chatboxai/chatbox#2564, johny-b/llmcomp#69)."""
    return error(400, f"Unsupported value: 'temperature' does not support {number(value)} with this model. "
                      "Only the default (1) value is supported.", "invalid_request_error", "temperature",
                 "unsupported_value")


def image_parse_error():
    """An image OpenAI cannot decode (a vendor's recorded body in its tests; marketing-factory/
    ai-filemetadata#26 quotes the message): param null, code image_parse_error."""
    return error(400, "You uploaded an unsupported image. Please make sure your image is valid.",
                 "invalid_request_error", None, "image_parse_error")


def invalid_image_format():
    """An image in a format OpenAI does not read (marketing-factory/ai-filemetadata#19 quotes the message,
    a vendor's recorded body gives code invalid_image_format)."""
    return error(400, "You uploaded an unsupported image. Please make sure your image has of one the following "
                      "formats: ['png', 'jpeg', 'gif', 'webp'].", "invalid_request_error", None,
                 "invalid_image_format")


def invalid_schema(name, context, rule):
    """A strict schema OpenAI refuses (outlines#844 for chat completions, bingoYB/ham_home#16 and
    vercel/ai#6484 for the wording): "Invalid schema for response_format 'NAME': In context=(...), RULE".
    Chat completions answered with code null in 2024 and invalid_json_schema since; this gives the latter."""
    return error(400, f"Invalid schema for response_format '{name}': In context={context!r}, {rule}",
                 "invalid_request_error", "response_format", "invalid_json_schema")


def invalid_value(param, message):
    """A parameter with a value outside what the spec allows (deep-research-py#19: "Invalid value: 'object'.
    Supported values are: ...", param the parameter's path, code invalid_value)."""
    return error(400, message, "invalid_request_error", param, "invalid_value")


def number(value):
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def queued(fault, model):
    """The error answer a queued fault stands for, or None when `fault` is not one of these."""
    name, _, argument = fault.partition(":")
    if fault == "401":
        return unauthorized("sk-proj-revoked-key-0000")
    if fault == "400_image":
        return image_parse_error()
    if fault == "400_image_format":
        return invalid_image_format()
    if fault == "400_max_tokens":
        return unsupported_max_tokens()
    if fault == "400_temperature":
        return unsupported_temperature(0.2)
    if fault == "400_schema":
        return invalid_schema("meal_analysis", ("properties", "items", "items"),
                              "'additionalProperties' is required to be supplied and to be false.")
    if fault == "403_region":
        # OpenAI's error-code guide ("403 - Country, region, or territory not supported"); the body as a
        # tracing client recorded it: type request_forbidden.
        return error(403, "Country, region, or territory not supported", "request_forbidden", None,
                     "unsupported_country_region_territory")
    if fault == "403_model":
        # A project without access to the model: 403, code model_not_found (Aider-AI/aider#1903, #604).
        return error(403, f"Project `proj_snapstation` does not have access to model `{model}`",
                     "invalid_request_error", None, "model_not_found")
    if fault == "404_model":
        return model_not_found(model)
    if fault == "429_quota":
        # No credit left: type and code insufficient_quota, and no retry header (ChatGPTNextWeb/NextChat#3123).
        return error(429, "You exceeded your current quota, please check your plan and billing details. For more "
                          "information on this error, read the docs: https://platform.openai.com/docs/guides/"
                          "error-codes/api-errors.", "insufficient_quota", None, "insufficient_quota")
    if name == "429":  # Retry-After in whole seconds only (RFC 9110), as before
        seconds = int(argument or 1)
        return rate_limited(model, seconds, [("retry-after", str(seconds)),
                                             *rate_limit_headers(go_duration(seconds))])
    if name in ("429_ms", "429_ms_ra"):  # retry-after-ms: the SDK's first choice (_base_client.py)
        millis = int(argument or 1500)
        headers = [("retry-after-ms", str(millis)), *rate_limit_headers(go_duration(millis / 1000))]
        if name == "429_ms_ra":
            headers.append(("retry-after", str(math.ceil(millis / 1000))))
        return rate_limited(model, millis / 1000, headers)
    if name == "429_reset":  # no retry header at all: only the x-ratelimit-reset-* durations
        requests, _, tokens = (argument or "1s,6m0s").partition(",")
        return rate_limited(model, parse_go_duration(requests),
                            rate_limit_headers(requests, tokens or "6m0s"))
    if fault == "500":
        return error(500, "The server had an error while processing your request. Sorry about that!",
                     "server_error")
    if fault == "503":
        # ikechan8370/chatgpt-plugin#125: 503, type server_error, code null.
        return error(503, "That model is currently overloaded with other requests. You can retry your request, or "
                          "contact us through our help center at help.openai.com if the error persists.",
                     "server_error")
    if fault == "llama_no_mmproj":
        # llama.cpp without --mmproj: oaicompat_chat_params_parse (tools/server/server-common.cpp) throws
        # std::runtime_error for an image_url part; ex_wrapper (tools/server/server.cpp) answers any
        # exception but invalid_argument with format_error_response(.., ERROR_TYPE_SERVER): HTTP 500,
        # {"error": {"code": 500, "message", "type": "server_error"}} (no param; code is the status).
        return Reply(500, {"error": {"code": 500, "message": "image input is not supported - hint: if this is "
                                     "unexpected, you may need to provide the mmproj", "type": "server_error"}})
    return None


def parse_go_duration(text):
    """Seconds in a duration such as "20ms", "1s" or "6m0s"."""
    units = {"h": 3600, "m": 60, "s": 1, "ms": 0.001}
    parts = re.findall(r"([0-9.]+)(ms|h|m|s)", text)
    if not parts or "".join(a + b for a, b in parts) != text:
        raise ValueError(f"not a duration: {text!r}")
    return sum(float(amount) * units[unit] for amount, unit in parts)


# Faults that answer 200 with an odd completion (openai_api.py builds them), and those the HTTP handler
# plays on the socket (fake_services.py).
ANSWERS = ("ok", "refusal", "malformed", "offschema", "mismatch", "overflow", "manyitems", "huge",
           "content_filter", "null_content", "length")
TRANSPORT = ("timeout", "reset", "drip")
ERRORS = ("401", "400_image", "400_image_format", "400_max_tokens", "400_temperature", "400_schema",
          "403_region", "403_model", "404_model", "429_quota", "429", "429_ms", "429_ms_ra", "429_reset",
          "500", "503", "llama_no_mmproj")


def known(fault):
    """Whether the stand-in understands `fault` (a name, with its argument where it takes one)."""
    if fault in ANSWERS or fault in TRANSPORT:
        return True
    try:
        return fault.partition(":")[0] in ERRORS and queued(fault, "gpt-4o-mini") is not None
    except ValueError:
        return False
