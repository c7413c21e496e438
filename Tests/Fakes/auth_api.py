"""The stand-in's Supabase Auth (GoTrue): /auth/v1/signup, /auth/v1/token (password and refresh_token
grants), /auth/v1/user, /auth/v1/logout, and of the admin API /auth/v1/admin/users/{user_id} (GET, and PUT
with ban_duration: a project owner disabling a user), written from supabase/auth's source (each rule names
its file).

Users, sessions, identities and refresh tokens are rows of the `auth` schema in the stand-in's database
(Tests/Group/prelude.sql), so the users it signs in are the ones `auth.uid()` and the schema's
foreign keys see. Auth runs as the database's owner (as supabase_auth_admin does), never as the caller.

Refresh tokens are Auth's default kind (GOTRUE_SECURITY_REFRESH_TOKEN_ALGORITHM_VERSION unset: 12
lower-case letters and digits, one row each, rotated on every use, a revoked one answered by the rule in
internal/tokens/service.go RefreshTokenGrant).
"""
import functools
import json
import re
import secrets
import uuid
from datetime import datetime, timezone
from urllib.parse import parse_qsl


import jwt_hs256
from reply import Reply
from supabase_standin import Refusal

JSON_TYPE = "application/json"
API_VERSION_HEADER = "X-Supabase-Api-Version"
API_VERSION_2024 = "2024-01-01"
MIN_PASSWORD_LENGTH = 6  # internal/conf/configuration.go defaultMinPasswordLength
MAX_PASSWORD_LENGTH = 72  # internal/api/password.go: bcrypt's limit
INVALID_LOGIN = "Invalid login credentials"  # internal/api/token.go InvalidLoginMessage
LEGACY_REFRESH_TOKEN = re.compile(r"^[a-z0-9]{12}$")  # internal/api/token_refresh.go
BEARER = re.compile(r"^(?:B|b)earer (\S+$)")  # internal/api/helpers.go bearerRegexp
# What github.com/badoux/checkmail ValidateFormat accepts (internal/api/mail.go validateEmail).
EMAIL_FORMAT = re.compile(r"^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
                          r"(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$")
AUDIENCE = "authenticated"  # config.JWT.Aud and DefaultGroupName: a user's aud and role
NIL_UUID = str(uuid.UUID(int=0))
# GOTRUE_JWT_ADMIN_ROLES unset: internal/conf/configuration.go (JWT.AdminRoles) defaults to these.
ADMIN_ROLES = ("service_role", "supabase_admin")
ADMIN_USER = re.compile(r"admin/users/([^/]+)")  # internal/api/api.go: /admin/users/{user_id}
# internal/api/admin.go AdminUserParams: what PUT /admin/users/{user_id} reads (id, aud and password_hash
# it ignores).
ADMIN_USER_FIELDS = ("id", "aud", "role", "email", "phone", "password", "password_hash", "email_confirm",
                     "phone_confirm", "user_metadata", "app_metadata", "ban_duration")
# Go's time.ParseDuration units (src/time/format.go unitMap), in nanoseconds.
GO_DURATION_UNITS = {b"ns": 1, b"us": 1_000, "\u00b5s".encode(): 1_000, "\u03bcs".encode(): 1_000,
                     b"ms": 1_000_000, b"s": 1_000_000_000, b"m": 60_000_000_000, b"h": 3_600_000_000_000}


class AuthError(Exception):
    """An error as internal/api/apierrors HTTPError carries it: HTTP status, error_code, message."""

    def __init__(self, status, code, message, weak_password=None):
        super().__init__(message)
        self.status, self.code, self.message, self.weak_password = status, code, message, weak_password


def bad_request(code, message):
    return AuthError(400, code, message)


def go_time(moment):
    """A timestamp as Go's encoding/json writes a time.Time in UTC (RFC 3339, fraction without trailing
    zeros, `Z`)."""
    if moment is None:
        return None
    moment = moment.astimezone(timezone.utc) if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    fraction = f"{moment.microsecond:06d}".rstrip("0")
    return f"{text}.{fraction}Z" if fraction else f"{text}Z"


def api_version(headers):
    """internal/api/apiversions.go DetermineClosestAPIVersion: 2024-01-01 for any valid date on or after
    it, else the initial version (None); an invalid date is the initial version too."""
    text = headers.get(API_VERSION_HEADER) or ""
    try:
        date = datetime.strptime(text, "%Y-%m-%d")
    except ValueError:
        return None
    return API_VERSION_2024 if date >= datetime(2024, 1, 1) else None


def error_reply(error, headers):
    """internal/api/errors.go HandleResponseError: since API version 2024-01-01 (the header the client
    libraries send) {"code": error_code, "message"}, the version echoed; before it
    {"code": status, "error_code", "msg"}; the code also in x-sb-error-code."""
    version = api_version(headers)
    reply_headers = [(API_VERSION_HEADER, version)] if version else []
    if version:
        body = {"code": error.code, "message": error.message}
        if error.weak_password is not None:
            body["weak_password"] = {"reasons": error.weak_password}
        else:
            reply_headers.append(("x-sb-error-code", error.code))
    else:
        body = {"code": error.status, "error_code": error.code, "msg": error.message}
        if error.weak_password is not None:
            body["weak_password"] = {"reasons": error.weak_password}
        reply_headers.append(("x-sb-error-code", error.code))
    return Reply(error.status, body, reply_headers, JSON_TYPE)


def auth_expired(exp, now):
    """golang-jwt v5 (Auth's JWT library, no leeway): valid while now is before exp."""
    return not now < exp


def jwt_words(error):
    """golang-jwt v5's words for a token it refuses, as Auth quotes them after "invalid JWT: unable to
    parse or verify signature, " (internal/api/auth.go parseJWTClaims)."""
    return {"empty": "token is malformed: token contains an invalid number of segments",
            "parts": "token is malformed: token contains an invalid number of segments",
            "encoding": "token is malformed: could not JSON decode header",
            "algorithm": f"token signature is invalid: signing method {error.algorithm} is invalid",
            "signature": "token signature is invalid: signature is invalid",
            "expired": "token has invalid claims: token is expired"}[error.kind]


class AuthAPI:
    def __init__(self, standin):
        self.standin = standin

    # -- routing ------------------------------------------------------------------------------------------

    def handle(self, method, route, query, headers, body):
        """`route` is what follows /auth/v1/. The gateway checks the apikey first (kong.yml: key-auth on
        auth-v1) and hands Auth the Authorization header it made."""
        try:
            authorization = self.standin.gateway("auth", headers, query)
        except Refusal as refusal:
            return refusal.reply
        params = dict(parse_qsl(query or "", keep_blank_values=True))
        routes = {("POST", "signup"): self.signup, ("POST", "token"): self.token, ("GET", "user"): self.user,
                  ("POST", "logout"): self.logout}
        route = route.rstrip("/")
        handler = routes.get((method, route))
        user_route = ADMIN_USER.fullmatch(route)
        if handler is None and user_route:
            admin = {"GET": self.admin_user_get, "PUT": self.admin_user_update}.get(method)
            handler = admin and functools.partial(admin, user_route.group(1))
        if handler is None:  # chi's own answer (internal/api/router.go has no NotFound of its own here)
            return Reply(404, b"404 page not found\n", content_type="text/plain; charset=utf-8")
        try:
            return handler(params, headers, authorization, body)
        except AuthError as error:
            return error_reply(error, headers)

    @staticmethod
    def json_body(body, fields):
        """internal/api/helpers.go retrieveRequestParams: the body as JSON (400 bad_json otherwise); fields
        it does not know are ignored and missing ones are empty, as Go's json.Unmarshal does."""
        try:
            payload = json.loads(body or b"{}")
        except ValueError as error:
            raise bad_request("bad_json", f"Could not parse request body as JSON: {error}") from None
        if not isinstance(payload, dict):
            raise bad_request("bad_json", "Could not parse request body as JSON: json: cannot unmarshal "
                                          "into Go value of type object")
        return {name: payload.get(name) for name in fields}

    # -- /signup --------------------------------------------------------------------------------------------

    def signup(self, _params, headers, _authorization, body):
        """internal/api/signup.go Signup (and the anonymous check of api.go before it). With autoconfirm
        (GOTRUE_MAILER_AUTOCONFIRM, the stand-in's default) the new user is confirmed and signed in: the
        answer is a session; without it, the user alone, unconfirmed."""
        request = self.json_body(body, ("email", "phone", "password", "data"))
        email, phone, password = (request["email"] or ""), (request["phone"] or ""), (request["password"] or "")
        if not email and not phone:
            raise AuthError(422, "anonymous_provider_disabled", "Anonymous sign-ins are disabled")
        if not password:
            raise bad_request("validation_failed", "Signup requires a valid password")
        check_password_strength(password)
        if email and phone:
            raise bad_request("validation_failed",
                              "Only an email address or phone number should be provided on signup.")
        if phone:  # GOTRUE_EXTERNAL_PHONE_ENABLED is off unless an SMS provider is set up
            raise bad_request("phone_provider_disabled", "Phone signups are disabled")
        email = validate_email(email)
        data = request["data"] if isinstance(request["data"], dict) else {}
        with self.standin.as_admin() as connection:
            existing = connection.execute("select id, email_confirmed_at from auth.users where lower(email) = %s "
                                          "and aud = %s and is_sso_user = false", [email, AUDIENCE]).fetchone()
            if existing and existing[1] is not None:
                if self.standin.autoconfirm:
                    raise AuthError(422, "user_already_exists", "User already registered")
                return Reply(200, sanitized_user(email, data), content_type=JSON_TYPE)
            user = existing[0] if existing else self.create_user(connection, email, password,
                                                                 confirmed=self.standin.autoconfirm, data=data)
            if not self.standin.autoconfirm:
                connection.execute("update auth.users set confirmation_sent_at = now(), "
                                   "confirmation_token = %s where id = %s", [secrets.token_hex(28), user])
                return Reply(200, self.user_json(connection, user), content_type=JSON_TYPE)
            session = self.issue_session(connection, headers, user, "password")
        return self.session_reply(session)

    def create_user(self, connection, email, password, confirmed, data=None):
        """A new email user as Signup makes one (params.ToUserModel, signupNewUser, createNewIdentity,
        and user.Confirm when confirmed); answers its id."""
        user = uuid.uuid4()
        app_metadata = {"provider": "email", "providers": ["email"]}
        user_metadata = dict(data or {})
        identity = {"sub": str(user), "email": email, "email_verified": False, "phone_verified": False}
        identity.update({key: value for key, value in user_metadata.items() if key not in identity})
        if confirmed:
            user_metadata["email_verified"] = True
        connection.execute(
            "insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, "
            "raw_app_meta_data, raw_user_meta_data, created_at, updated_at, phone, is_anonymous) "
            "values ('00000000-0000-0000-0000-000000000000', %s, %s, %s, %s, "
            "extensions.crypt(%s, extensions.gen_salt('bf', 10)), case when %s then now() end, %s, %s, "
            "now(), now(), null, false)",
            [user, AUDIENCE, AUDIENCE, email.lower(), password, confirmed, json.dumps(app_metadata),
             json.dumps(user_metadata)])
        connection.execute("insert into auth.identities (provider_id, user_id, identity_data, provider, "
                           "last_sign_in_at, created_at, updated_at) values (%s, %s, %s, 'email', now(), now(), now())",
                           [str(user), user, json.dumps(identity)])
        return user

    # -- /token ---------------------------------------------------------------------------------------------

    def token(self, params, headers, authorization, body):
        """internal/api/token.go Token: the grant type from the query string."""
        grant = params.get("grant_type", "")
        if grant == "password":
            return self.password_grant(headers, body)
        if grant == "refresh_token":
            return self.refresh_grant(headers, body)
        raise bad_request("invalid_credentials", "unsupported_grant_type")

    def password_grant(self, headers, body):
        """internal/api/token.go ResourceOwnerPasswordGrant."""
        request = self.json_body(body, ("email", "phone", "password"))
        email, phone, password = (request["email"] or ""), (request["phone"] or ""), (request["password"] or "")
        if email and phone:
            raise bad_request("validation_failed", "Only an email address or phone number should be provided on login.")
        if phone:
            raise AuthError(422, "phone_provider_disabled", "Phone logins are disabled")
        if not email:
            raise bad_request("validation_failed", "missing email or phone")
        with self.standin.as_admin() as connection:
            row = connection.execute(
                "select id, encrypted_password, banned_until > now(), email_confirmed_at is not null, "
                "encrypted_password <> '' and encrypted_password = extensions.crypt(%s, encrypted_password) "
                "from auth.users where lower(email) = %s and aud = %s and is_sso_user = false",
                [password, email.lower(), AUDIENCE]).fetchone()
            if row is None or not row[1]:
                raise bad_request("invalid_credentials", INVALID_LOGIN)
            user, _, banned, confirmed, valid = row
            if banned:
                raise bad_request("user_banned", "User is banned")
            if not valid:
                raise bad_request("invalid_credentials", INVALID_LOGIN)
            if not confirmed:
                raise bad_request("email_not_confirmed", "Email not confirmed")
            session = self.issue_session(connection, headers, user, "password")
        return self.session_reply(session)

    def refresh_grant(self, headers, body):
        """internal/api/token_refresh.go (the token's form) and internal/tokens/service.go
        RefreshTokenGrant (the rule), for Auth's default refresh tokens:
        - a token that is not revoked is revoked and replaced by a new one, its child;
        - a revoked token whose child is the session's active token answers that active token again,
          however long ago it was used (the client never stored the answer);
        - any other revoked token used within the reuse interval of its revocation (updated_at) gets a
          new child as well; used later, every token of its session is revoked and the answer is 400
          refresh_token_already_used (the revocation is committed with the error).
        An unknown token (never issued, or its session logged out) is 400 refresh_token_not_found."""
        request = self.json_body(body, ("refresh_token",))
        token = request["refresh_token"] or ""
        # Longer tokens are the v2 kind (crypto.ParseRefreshToken), which this Auth never issues.
        if not isinstance(token, str) or len(token) != 12 or not LEGACY_REFRESH_TOKEN.match(token):
            raise bad_request("validation_failed", "Refresh token is not valid")
        failure = answer = None  # a failure that must be committed first (a deleted token, a revoked family)
        with self.standin.as_admin() as connection:
            row = connection.execute(
                "select t.id, t.revoked, t.session_id, s.id is not null, u.id, u.banned_until > now(), "
                "s.not_after < now(), extract(epoch from t.updated_at)::float8 "
                "from auth.refresh_tokens t left join auth.sessions s on s.id = t.session_id "
                "left join auth.users u on u.id::text = t.user_id where t.token = %s for update of t",
                [token]).fetchone()
            if row is None:
                raise bad_request("refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
            token_id, revoked, session, has_session, user, banned, past_not_after, revoked_at = row
            # On the services' clock (the stand-in's, which tests move): the revocation, then the interval.
            outside_interval = self.standin.now() > revoked_at + self.standin.reuse_interval
            if banned:
                raise bad_request("user_banned", "Invalid Refresh Token: User Banned")
            if not has_session:
                connection.execute("delete from auth.refresh_tokens where id = %s", [token_id])
                failure = bad_request("session_not_found", "Invalid Refresh Token: No Valid Session Found")
            elif past_not_after:
                raise bad_request("session_expired", "Invalid Refresh Token: Session Expired")
            else:
                connection.execute("select 1 from auth.sessions where id = %s for update", [session])
                issued = None
                if revoked:
                    active = connection.execute(
                        "select token, parent from auth.refresh_tokens where session_id = %s and revoked is false "
                        "order by id desc limit 1", [session]).fetchone()
                    if active is not None and active[1] == token:
                        issued = active[0]
                    elif outside_interval:
                        connection.execute("update auth.refresh_tokens set revoked = true, updated_at = to_timestamp(%s) "
                                           "where session_id = %s and revoked = false", [self.standin.now(), session])
                        failure = bad_request("refresh_token_already_used", "Invalid Refresh Token: Already Used")
                if failure is None:
                    if issued is None:  # models.GrantRefreshTokenSwap
                        connection.execute("update auth.refresh_tokens set revoked = true, updated_at = to_timestamp(%s) "
                                           "where id = %s", [self.standin.now(), token_id])
                        issued = self.new_refresh_token(connection, user, session, parent=token)
                    access, expires_at = self.access_token(connection, user, session)
                    connection.execute("update auth.sessions set refreshed_at = now() at time zone 'utc', "
                                       "user_agent = %s, updated_at = now() where id = %s",
                                       [headers.get("User-Agent") or None, session])
                    answer = self.session_answer(connection, user, session, access, expires_at, issued)
        if failure is not None:
            raise failure
        return self.session_reply(answer)

    # -- /user and /logout ------------------------------------------------------------------------------

    def user(self, _params, headers, authorization, _body):
        """internal/api/user.go UserGet, behind requireAuthentication."""
        with self.standin.as_admin() as connection:
            claims, user, _session = self.authenticate(connection, authorization)
            if claims.get("aud") != (headers.get("X-JWT-AUD") or AUDIENCE):
                raise bad_request("validation_failed", "Token audience doesn't match request audience")
            return Reply(200, self.user_json(connection, user), content_type=JSON_TYPE)

    def logout(self, params, _headers, authorization, _body):
        """internal/api/logout.go Logout: scope global (the default: every session of the user), local
        (this session) or others; answers 204. Access tokens already issued stay valid at PostgREST and
        Storage until they expire: those check only the signature and `exp`."""
        scope = params.get("scope", "")
        if scope not in ("", "global", "local", "others"):
            raise bad_request("validation_failed", f'Unsupported logout scope "{scope}"')
        with self.standin.as_admin() as connection:
            _claims, user, session = self.authenticate(connection, authorization)
            if session is not None and scope == "local":
                connection.execute("delete from auth.sessions where id = %s", [session])
            elif session is not None and scope == "others":
                connection.execute("delete from auth.sessions where id <> %s and user_id = %s", [session, user])
            else:
                connection.execute("delete from auth.sessions where user_id = %s", [user])
        return Reply(204, b"")

    def authenticate(self, connection, authorization):
        """internal/api/auth.go requireAuthentication: the Bearer token, verified with the project's
        secret (golang-jwt: 403 bad_jwt when it does not verify or has expired), its user and session;
        a banned user is refused even with a token issued before the ban."""
        claims = self.bearer_claims(authorization)
        user, session, banned = self.load_user_or_session(connection, claims)
        if banned:
            raise AuthError(403, "user_banned", "User is banned")
        return claims, user, session

    def bearer_claims(self, authorization):
        """internal/api/auth.go extractBearerToken and parseJWTClaims: the claims of the Bearer token."""
        match = BEARER.match(authorization or "")
        if not match:
            raise AuthError(401, "no_authorization", "This endpoint requires a valid Bearer token")
        try:
            return jwt_hs256.verify(match.group(1), self.standin.secret, now=self.standin.now(), expired=auth_expired)
        except jwt_hs256.JWTError as error:
            raise AuthError(403, "bad_jwt", "invalid JWT: unable to parse or verify signature, "
                                            f"{jwt_words(error)}") from None

    @staticmethod
    def load_user_or_session(connection, claims):
        """internal/api/auth.go maybeLoadUserOrSession: the user of `sub` and the session of `session_id`
        (None when the claim is absent or the nil UUID); answers (user, session, banned)."""
        subject = claims.get("sub") or ""
        if not subject:
            raise AuthError(403, "bad_jwt", "invalid claim: missing sub claim")
        try:
            user = uuid.UUID(subject)
        except ValueError:
            raise bad_request("bad_jwt", "invalid claim: sub claim must be a UUID") from None
        row = connection.execute("select banned_until > now() from auth.users where id = %s", [user]).fetchone()
        if row is None:
            raise AuthError(403, "user_not_found", "User from sub claim in JWT does not exist")
        session = None
        if claims.get("session_id") and claims["session_id"] != NIL_UUID:
            try:
                session = uuid.UUID(claims["session_id"])
            except ValueError:
                raise AuthError(403, "bad_jwt", "invalid claim: session_id claim must be a UUID") from None
            if connection.execute("select 1 from auth.sessions where id = %s", [session]).fetchone() is None:
                raise AuthError(403, "session_not_found", "Session from session_id claim in JWT does not exist")
        return user, session, bool(row[0])

    # -- /admin/users/{user_id} -------------------------------------------------------------------------

    def require_admin(self, connection, authorization):
        """internal/api/middleware.go requireAdminCredentials, on every /admin route: the Bearer token's
        claims (as requireAuthentication reads them); a token naming a session must name a user and a
        session that exist, the session not past its not_after (403 session_expired; the stand-in has no
        timebox or inactivity timeout); then internal/api/auth.go requireAdmin: the token's role must be
        one of the admin roles (the service_role key's is), else 403 not_admin "User not allowed" (the
        anon key's role anon, a user's authenticated)."""
        claims = self.bearer_claims(authorization)
        if claims.get("session_id") and claims["session_id"] != NIL_UUID:
            _user, session, _banned = self.load_user_or_session(connection, claims)
            past = connection.execute("select not_after < now() from auth.sessions where id = %s", [session])
            if past.fetchone()[0]:
                raise AuthError(403, "session_expired", "Session is no longer valid")
        if claims.get("role") not in ADMIN_ROLES:
            raise AuthError(403, "not_admin", "User not allowed")
        return claims

    @staticmethod
    def load_user(connection, user_id):
        """internal/api/admin.go loadUser (models.FindUserByID: instance_id is the nil UUID)."""
        try:
            user = uuid.UUID(user_id)
        except ValueError:
            raise AuthError(404, "validation_failed", "user_id must be an UUID") from None
        row = connection.execute("select id from auth.users where instance_id = %s and id = %s",
                                 [NIL_UUID, user]).fetchone()
        if row is None:
            raise AuthError(404, "user_not_found", "User not found")
        return row[0]

    def admin_user_get(self, user_id, _params, _headers, authorization, _body):
        """internal/api/admin.go adminUserGet: the user object."""
        with self.standin.as_admin() as connection:
            self.require_admin(connection, authorization)
            user = self.load_user(connection, user_id)
            return Reply(200, self.user_json(connection, user), content_type=JSON_TYPE)

    def admin_user_update(self, user_id, _params, _headers, authorization, body):
        """internal/api/admin.go adminUserUpdate, for `ban_duration`, the way a project owner disables a
        user: a Go duration (time.ParseDuration; 400 validation_failed "invalid format for ban duration:
        ..." otherwise), "876000h" for 100 years; "none" (or any zero duration) lifts the ban.
        models.User.Ban (internal/models/user.go) sets banned_until to now + the duration (nil for zero)
        and, through storage.UpdateOnly, updated_at; it does not log the user out: its sessions and
        refresh tokens stay, but from then on the password grant answers 400 user_banned, the refresh
        grant 400 user_banned "Invalid Refresh Token: User Banned" (internal/tokens/service.go), and
        requireAuthentication 403 user_banned, while PostgREST and Storage take the access tokens already
        issued until they expire. Answers the user object. The other fields of the real update (email,
        phone, password, role, confirmations, metadata) the stand-in does not do: it answers 501 for them
        rather than ignore them. (Auth's audit log entry the stand-in does not keep.)"""
        with self.standin.as_admin() as connection:
            self.require_admin(connection, authorization)
            user = self.load_user(connection, user_id)
            request = self.json_body(body, ADMIN_USER_FIELDS)
            ban = request["ban_duration"]
            if ban is not None and not isinstance(ban, str):
                raise bad_request("bad_json", "Could not parse request body as JSON: json: cannot unmarshal "
                                              f"{json_kind(ban)} into Go struct field AdminUserParams.ban_duration "
                                              "of type string")
            unsupported = [name for name in ("role", "email", "phone", "email_confirm", "phone_confirm")
                           if request[name]]
            unsupported += [name for name in ("password", "user_metadata", "app_metadata")
                            if request[name] is not None]
            if unsupported:
                return Reply(501, {"message": "the stand-in's admin user update does ban_duration only, not "
                                              + ", ".join(unsupported)})
            if ban:
                try:
                    nanoseconds = 0 if ban == "none" else go_duration(ban)
                except ValueError as error:
                    raise bad_request("validation_failed", f"invalid format for ban duration: {error}") from None
                seconds = nanoseconds / 1e9 if nanoseconds else None  # null: no ban
                connection.execute("update auth.users set banned_until = now() + make_interval(secs => %s), "
                                   "updated_at = now() where id = %s", [seconds, user])
            return Reply(200, self.user_json(connection, user), content_type=JSON_TYPE)

    # -- sessions and tokens --------------------------------------------------------------------------------

    def issue_session(self, connection, headers, user, method):
        """internal/tokens/service.go IssueRefreshToken with models.GrantAuthenticatedUser: a new session,
        its first refresh token, the sign-in method as its AMR claim, last_sign_in_at, an access token."""
        session = uuid.uuid4()
        connection.execute("insert into auth.sessions (id, user_id, created_at, updated_at, aal, user_agent) "
                           "values (%s, %s, now(), now(), 'aal1', %s)", [session, user, headers.get("User-Agent")])
        refresh = self.new_refresh_token(connection, user, session, parent=None)
        connection.execute("insert into auth.mfa_amr_claims (id, session_id, created_at, updated_at, "
                           "authentication_method) values (%s, %s, now(), now(), %s) on conflict on constraint "
                           "mfa_amr_claims_session_id_authentication_method_pkey do update set updated_at = now()",
                           [uuid.uuid4(), session, method])
        connection.execute("update auth.users set last_sign_in_at = now(), updated_at = now() where id = %s", [user])
        access, expires_at = self.access_token(connection, user, session)
        return self.session_answer(connection, user, session, access, expires_at, refresh)

    @staticmethod
    def new_refresh_token(connection, user, session, parent):
        """models/refresh_token.go createRefreshToken: crypto.SecureAlphanumeric(12), lower-case base32."""
        alphabet = "abcdefghijklmnopqrstuvwxyz234567"
        token = "".join(secrets.choice(alphabet) for _ in range(12))
        connection.execute("insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, "
                           "updated_at, parent, session_id) values ('00000000-0000-0000-0000-000000000000', %s, "
                           "%s, false, now(), now(), %s, %s)", [token, str(user), parent, session])
        return token

    def access_token(self, connection, user, session):
        """internal/tokens/service.go GenerateAccessToken: the claims in Auth's order, exp = now + JWT exp
        (--jwt-expiry), aud as a plain string; answers (token, exp)."""
        row = connection.execute(
            "select email, phone, raw_app_meta_data, raw_user_meta_data, role, is_anonymous from auth.users "
            "where id = %s", [user]).fetchone()
        amr = connection.execute("select authentication_method, extract(epoch from updated_at)::bigint "
                                 "from auth.mfa_amr_claims where session_id = %s order by created_at",
                                 [session]).fetchall()
        now = int(self.standin.now())
        expires_at = now + int(self.standin.jwt_expiry)
        claims = {"iss": self.standin.issuer, "sub": str(user), "aud": AUDIENCE, "exp": expires_at, "iat": now,
                  "email": row[0] or "", "phone": row[1] or "", "app_metadata": row[2] or {},
                  "user_metadata": row[3] or {}, "role": row[4] or "", "aal": "aal1",
                  "amr": [{"method": method, "timestamp": stamp} for method, stamp in amr],
                  "session_id": str(session), "is_anonymous": bool(row[5])}
        return jwt_hs256.sign(claims, self.standin.secret), expires_at

    def session_answer(self, connection, user, session, access, expires_at, refresh):
        """tokens.AccessTokenResponse as Auth sends it."""
        return {"access_token": access, "token_type": "bearer", "expires_in": expires_at - int(self.standin.now()),
                "expires_at": expires_at, "refresh_token": refresh, "user": self.user_json(connection, user),
                "_session": str(session)}

    @staticmethod
    def session_reply(answer):
        """The session, with the headers Auth adds (sb-auth-user-id, sb-auth-session-id and the refresh
        token's first five characters)."""
        answer = dict(answer)
        session = answer.pop("_session")
        head = [("sb-auth-user-id", answer["user"]["id"]), ("sb-auth-session-id", session),
                ("sb-auth-refresh-token-prefix", answer["refresh_token"][:5])]
        return Reply(200, answer, head, JSON_TYPE)

    @staticmethod
    def user_json(connection, user):
        """models.User as Auth sends it: the fields in its order, empty times left out, identities with."""
        row = connection.execute(
            "select id, aud, role, email, email_confirmed_at, invited_at, phone, phone_confirmed_at, "
            "confirmation_sent_at, confirmed_at, last_sign_in_at, raw_app_meta_data, raw_user_meta_data, "
            "created_at, updated_at, banned_until, deleted_at, is_anonymous from auth.users where id = %s",
            [user]).fetchone()
        (user_id, aud, role, email, email_confirmed, invited, phone, phone_confirmed, confirmation_sent,
         confirmed, last_sign_in, app_metadata, user_metadata, created, updated, banned, deleted, anonymous) = row
        answer = {"id": str(user_id), "aud": aud or "", "role": role or "", "email": email or ""}
        optional = [("email_confirmed_at", email_confirmed), ("invited_at", invited)]
        answer.update({key: go_time(value) for key, value in optional if value is not None})
        answer["phone"] = phone or ""
        optional = [("phone_confirmed_at", phone_confirmed), ("confirmation_sent_at", confirmation_sent),
                    ("confirmed_at", confirmed), ("last_sign_in_at", last_sign_in)]
        answer.update({key: go_time(value) for key, value in optional if value is not None})
        answer["app_metadata"] = app_metadata or {}
        answer["user_metadata"] = user_metadata or {}
        identities = connection.execute(
            "select id, provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at, "
            "email from auth.identities where user_id = %s order by created_at", [user]).fetchall()
        answer["identities"] = [identity_json(identity) for identity in identities]
        answer["created_at"], answer["updated_at"] = go_time(created), go_time(updated)
        answer.update({key: go_time(value) for key, value in (("banned_until", banned), ("deleted_at", deleted))
                       if value is not None})
        answer["is_anonymous"] = bool(anonymous)
        return answer


def identity_json(row):
    """models.Identity as Auth sends it (its id as identity_id, the provider's id as id)."""
    identity_id, provider_id, user_id, data, provider, last_sign_in, created, updated, email = row
    answer = {"identity_id": str(identity_id), "id": provider_id, "user_id": str(user_id),
              "identity_data": data, "provider": provider}
    if last_sign_in is not None:
        answer["last_sign_in_at"] = go_time(last_sign_in)
    answer.update({"created_at": go_time(created), "updated_at": go_time(updated)})
    if email:
        answer["email"] = email
    return answer


def json_kind(value):
    """The JSON kind of a decoded value as Go's encoding/json names it in an UnmarshalTypeError."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "object" if isinstance(value, dict) else "array" if isinstance(value, list) else "string"


def go_duration(text):
    """Go's time.ParseDuration (src/time/format.go): a possibly signed sequence of decimal numbers,
    each with an optional fraction and a unit (ns, us, \u00b5s, \u03bcs, ms, s, m, h), "0" alone; answers
    nanoseconds, or ValueError with Go's words (time.quote: non-ASCII and control bytes as \\xNN)."""
    raw = text.encode()
    orig, s, total, negative = go_quote(raw), raw, 0, False
    if s[:1] in (b"-", b"+"):
        negative, s = s[:1] == b"-", s[1:]
    if s == b"0":
        return 0
    if not s:
        raise ValueError(f"time: invalid duration {orig}")
    while s:
        if not (s[:1] == b"." or s[:1].isdigit()):
            raise ValueError(f"time: invalid duration {orig}")
        digits = len(s) - len(s.lstrip(b"0123456789"))
        whole, s = s[:digits], s[digits:]
        value = int(whole) if whole else 0
        if value > 1 << 63:  # leadingInt's overflow
            raise ValueError(f"time: invalid duration {orig}")
        fraction, scale, after_point = 0, 1.0, False
        if s[:1] == b".":
            s = s[1:]
            digits = len(s) - len(s.lstrip(b"0123456789"))
            after_point = digits > 0
            for digit in s[:digits]:  # leadingFraction: stops gaining precision before it overflows
                if fraction > ((1 << 63) - 1) // 10 or fraction * 10 + digit - 48 > 1 << 63:
                    break
                fraction, scale = fraction * 10 + digit - 48, scale * 10
            s = s[digits:]
        if not whole and not after_point:
            raise ValueError(f"time: invalid duration {orig}")
        end = next((i for i, byte in enumerate(s) if byte == 46 or 48 <= byte <= 57), len(s))
        if end == 0:
            raise ValueError(f"time: missing unit in duration {orig}")
        unit_name, s = s[:end], s[end:]
        unit = GO_DURATION_UNITS.get(unit_name)
        if unit is None:
            raise ValueError(f"time: unknown unit {go_quote(unit_name)} in duration {orig}")
        if value > (1 << 63) // unit:
            raise ValueError(f"time: invalid duration {orig}")
        value *= unit
        if fraction > 0:
            value += int(float(fraction) * (float(unit) / scale))
            if value > 1 << 63:
                raise ValueError(f"time: invalid duration {orig}")
        total += value
        if total > 1 << 63:
            raise ValueError(f"time: invalid duration {orig}")
    if negative:
        return -total
    if total > (1 << 63) - 1:
        raise ValueError(f"time: invalid duration {orig}")
    return total


def go_quote(raw):
    """src/time/format.go quote: in double quotes, `"` and `\\` escaped, other bytes outside printable
    ASCII as \\xNN."""
    out = []
    for byte in raw:
        if byte >= 0x80 or byte < 0x20:
            out.append(f"\\x{byte:02x}")
        else:
            out.append(("\\" if byte in (34, 92) else "") + chr(byte))
    return '"' + "".join(out) + '"'


def sanitized_user(email, data):
    """internal/api/signup.go sanitizeUser: what a sign-up of a confirmed address answers when
    confirmations are on, so nobody learns the address is registered: a made-up user."""
    now = go_time(datetime.now(timezone.utc))
    return {"id": str(uuid.uuid4()), "aud": AUDIENCE, "role": "", "email": email, "phone": "",
            "confirmation_sent_at": now, "app_metadata": {"provider": "email", "providers": ["email"]},
            "user_metadata": data, "identities": [], "created_at": now, "updated_at": now, "is_anonymous": False}


def check_password_strength(password):
    """internal/api/password.go checkPasswordStrength with the default settings (length only)."""
    if len(password) > MAX_PASSWORD_LENGTH:
        raise bad_request("validation_failed", f"Password cannot be longer than {MAX_PASSWORD_LENGTH} characters")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise AuthError(422, "weak_password", f"Password should be at least {MIN_PASSWORD_LENGTH} characters.",
                        weak_password=["length"])


def validate_email(email):
    """internal/api/mail.go validateEmail."""
    if len(email) > 255:
        raise bad_request("validation_failed", "An email address is too long")
    if not EMAIL_FORMAT.match(email):
        raise bad_request("validation_failed", "Unable to validate email address: invalid format")
    return email.lower()
