"""HS256 JSON Web Tokens, as a Supabase project signs its API keys and its users' access tokens."""
import base64
import hashlib
import hmac
import json
import time


class JWTError(Exception):
    """Why a token was refused, in the words of the jsonwebtoken library the Storage API uses."""


def _encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign(claims, secret):
    header = _encode(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    payload = _encode(json.dumps(claims, separators=(",", ":")).encode())
    signature = hmac.new(secret.encode(), f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{_encode(signature)}"


def verify(token, secret, now=None):
    """The token's claims, or JWTError when it is malformed, not ours, or expired."""
    if not token:
        raise JWTError("jwt must be provided")
    parts = token.split(".")
    if len(parts) != 3:
        raise JWTError("jwt malformed")
    try:
        header, claims = json.loads(_decode(parts[0])), json.loads(_decode(parts[1]))
        signature = _decode(parts[2])
    except ValueError:
        raise JWTError("jwt malformed") from None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise JWTError("jwt malformed")
    if header.get("alg") != "HS256":
        raise JWTError("invalid algorithm")
    expected = hmac.new(secret.encode(), f"{parts[0]}.{parts[1]}".encode(), hashlib.sha256).digest()
    if not hmac.compare_digest(signature, expected):
        raise JWTError("invalid signature")
    if "exp" in claims and claims["exp"] <= (now or time.time()):
        raise JWTError("jwt expired")
    return claims
