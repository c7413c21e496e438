"""HS256 JSON Web Tokens, as a Supabase project signs its legacy API keys and its users' access tokens.

verify() says why a token is refused as a kind (JWTError.kind); each service of the stand-in words it as
its own JWT library does, and each passes its own rule for when `exp` has passed (Auth, PostgREST and
Storage differ: see their modules).
"""
import base64
import hashlib
import hmac
import json
import time


class JWTError(Exception):
    """Why a token was refused: `kind` is one of
        empty      no token at all
        parts      not three dot-separated parts (`parts` says how many)
        encoding   a part that is not base64url JSON
        algorithm  a header whose alg is not HS256 (`algorithm` names it)
        signature  not signed with the project's secret
        expired    its `exp` has passed, by the verifying service's rule
    """

    def __init__(self, kind, parts=3, algorithm=None):
        super().__init__(kind)
        self.kind, self.parts, self.algorithm = kind, parts, algorithm


def _encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign(claims, secret):
    header = _encode(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    payload = _encode(json.dumps(claims, separators=(",", ":")).encode())
    signature = hmac.new(secret.encode(), f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{_encode(signature)}"


def expires_at_or_before(exp, now):
    """The default rule: expired once `now` reaches `exp`."""
    return exp <= now


def verify(token, secret, now=None, expired=expires_at_or_before):
    """The token's claims, or JWTError. The signature is checked before the claims, as every JWT library
    the services use does; `expired(exp, now)` is the service's own rule for `exp`."""
    if not token:
        raise JWTError("empty")
    parts = token.split(".")
    if len(parts) != 3:
        raise JWTError("parts", parts=len(parts))
    try:
        header, claims = json.loads(_decode(parts[0])), json.loads(_decode(parts[1]))
        signature = _decode(parts[2])
    except ValueError:
        raise JWTError("encoding") from None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise JWTError("encoding")
    if header.get("alg") != "HS256":
        raise JWTError("algorithm", algorithm=header.get("alg"))
    expected = hmac.new(secret.encode(), f"{parts[0]}.{parts[1]}".encode(), hashlib.sha256).digest()
    if not hmac.compare_digest(signature, expected):
        raise JWTError("signature")
    exp = claims.get("exp")
    if isinstance(exp, (int, float)) and expired(exp, time.time() if now is None else now):
        raise JWTError("expired")
    return claims
