"""The stand-in's PostgREST: /rest/v1/TABLE for the tables in `public`, with PostgREST's query syntax
(eq, neq, gt, gte, lt, lte, is, in; select=a,b; order=a.desc; limit; offset) and Prefer header, and
/rest/v1/rpc/FUNCTION for the functions in `public` (named arguments as a JSON object, or in the query
string for GET), run in the database as the caller. PostgreSQL's errors are answered as PostgREST answers
them: the error's fields as JSON, and the HTTP status from PostgREST's table (docs.postgrest.org, "Errors";
src/library/PostgREST/Error.hs mapSQLtoHTTP), PTxyz as status xyz; a function may also set its answer's
status with the `response.status` setting (then the transaction still commits).
"""
import json
from urllib.parse import parse_qsl

from groupdb import psycopg, sql

import jwt_hs256
from reply import Reply
from supabase_standin import Refusal, bearer

JSON_TYPE = "application/json; charset=utf-8"
OPERATORS = {"eq": "=", "neq": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
IS_VALUES = {"null", "true", "false", "unknown"}
ORDER_MODIFIERS = {"asc": "asc", "desc": "desc", "nullsfirst": "nulls first", "nullslast": "nulls last"}
RESERVED = {"select", "order", "limit", "offset", "on_conflict", "columns"}
ALLOWED_SKEW_SECONDS = 30  # src/library/PostgREST/Auth/Jwt.hs allowedSkewSeconds

# PostgREST's HTTP status for PostgreSQL's error codes: exact codes first, then classes; 42501 depends on
# whether the caller is signed in (403) or not (401).
EXACT_STATUS = {"23503": 409, "23505": 409, "25006": 405, "P0001": 400, "42883": 404, "42P01": 404, "53400": 500}
CLASS_STATUS = {"08": 503, "09": 500, "0L": 403, "0P": 403, "25": 500, "28": 403, "2D": 500, "38": 500, "39": 500,
                "3B": 500, "40": 500, "53": 503, "54": 500, "55": 500, "57": 500, "58": 500, "F0": 500, "HV": 500,
                "P0": 500, "XX": 500}


class RestError(Exception):
    """A request PostgREST itself refuses (a PGRST code), before it reaches the database."""

    def __init__(self, status, code, message, details=None):
        super().__init__(message)
        self.reply = Reply(status, error_body(code, message, details), content_type=JSON_TYPE)


def error_body(code, message, details=None, hint=None):
    return {"code": code, "details": details, "hint": hint, "message": message}


class PostgREST:
    def __init__(self, standin):
        self.standin = standin
        self.known_columns = {}

    def handle(self, method, table, query, headers, body):
        try:
            claims = self.caller(headers, query)
        except Refusal as refusal:
            return refusal.reply
        except jwt_hs256.JWTError as error:
            return jwt_error(error)
        request = RestRequest(table, parse_qsl(query, keep_blank_values=True), headers, body, method)
        if table.startswith("rpc/"):
            try:
                return self.call(request, table[len("rpc/"):], claims)
            except RestError as error:
                return error.reply
            except psycopg.Error as error:
                return database_error(error, claims.get("role") or "anon")
        try:
            request.columns = self.columns(table)
            action = {"GET": self.read, "POST": self.insert, "PATCH": self.update, "DELETE": self.delete}[method]
            return action(request, claims)
        except RestError as error:
            return error.reply
        except psycopg.Error as error:
            return database_error(error, claims.get("role") or "anon")

    def caller(self, headers, query):
        """The caller's claims: the gateway's key check (Refusal), then the bearer token as PostgREST
        reads it (src/library/PostgREST/Auth/Jwt.hs). No token at all is the anon role; a token that does
        not verify raises jwt_hs256.JWTError."""
        token = bearer(self.standin.gateway("rest", headers, query))
        if token is None:
            return {"role": "anon"}
        return jwt_hs256.verify(token, self.standin.secret, now=self.standin.now(), expired=postgrest_expired)

    def columns(self, table):
        """The table's columns, or PostgREST's 404 for a table it does not expose."""
        if table not in self.known_columns:
            with self.standin.as_admin() as connection:
                rows = connection.execute("select column_name from information_schema.columns "
                                          "where table_schema = 'public' and table_name = %s", [table]).fetchall()
            if not rows:
                raise RestError(404, "42P01", f'relation "public.{table}" does not exist')
            self.known_columns[table] = {name for (name,) in rows}
        return self.known_columns[table]

    # -- /rest/v1/rpc/FUNCTION ------------------------------------------------------------------------------

    def call(self, request, name, claims):
        """A function call as PostgREST makes it (src/library/PostgREST/Plan.hs callReadPlan and findProc,
        Query/QueryBuilder.hs callPlanToQuery, Query/Statements.hs mainCall, Response.hs): POST with the
        named arguments as a JSON object (an empty body is {}), or GET with them in the query string; the
        function is the one of that name whose parameters the keys match (all of its required ones, and
        only its own). It runs as the caller, in a read-only transaction when it is stable or immutable or
        called with GET. The answer: a scalar as its JSON value, a set of scalars as an array, rows as an
        array of objects; 204 and no body for void. A status the function put in `response.status` is the
        answer's status, and the transaction commits all the same."""
        if request.method not in ("GET", "POST"):
            raise RestError(405, "PGRST101", f"Cannot use the {request.method} method on RPC")
        if request.method == "POST":
            arguments = request.arguments()
        else:
            arguments = {key: value for key, value in request.params if key not in RESERVED}
        function = self.function(name, set(arguments), request.method == "POST")
        given = [parameter for parameter in function.parameters if parameter[0] in arguments]
        record = sql.SQL(", ").join(sql.SQL("{} {}").format(sql.Identifier(p), sql.SQL(kind)) for p, kind in given)
        named = sql.SQL(", ").join(sql.SQL("{0} := _body.{0}").format(sql.Identifier(p)) for p, _ in given)
        invocation = sql.SQL("{}({})").format(sql.Identifier("public", name), named)
        source = (sql.SQL("json_to_record(%s::json) as _body({})").format(record) if given
                  else sql.SQL("(select) _body"))
        if function.returns_void:
            statement = sql.SQL("select '', count(*) from (select {1} from {0}) _call")
        elif function.returns_set:
            statement = sql.SQL("select coalesce(json_agg(_call), '[]')::text, count(*) from {}, lateral {} _call")
        elif function.composite:
            statement = sql.SQL("select coalesce(json_agg(_call) -> 0, 'null')::text, count(*) "
                                "from {}, lateral {} _call")
        else:
            statement = sql.SQL("select coalesce(json_agg(_call.value) -> 0, 'null')::text, count(*) "
                                "from (select {1} as value from {0}) _call")
        statement = statement.format(source, invocation)
        read_only = request.method == "GET" or function.volatility in ("s", "i")
        with self.standin.as_caller(claims, request.method, f"/rest/v1/rpc/{name}", read_only=read_only) as connection:
            text, rows = connection.execute(statement, [json.dumps(arguments)] if given else []).fetchone()
            status_setting, headers_setting = connection.execute(
                "select current_setting('response.status', true), current_setting('response.headers', true)"
            ).fetchone()
        span = "*/*" if rows == 0 else f"0-{rows - 1}/*"
        headers = [("Content-Range", span)] + response_headers(headers_setting)
        status = response_status(status_setting)
        if function.returns_void:
            return Reply(status or 204, b"", headers, JSON_TYPE)
        return Reply(status or 200, text.encode(), headers, JSON_TYPE)

    def function(self, name, keys, posted):
        """The function of `public` that PostgREST's findProc would pick for these argument names, or its
        404 PGRST202 (with no hint: PostgREST's fuzzy "Perhaps you meant…" is not stood in for)."""
        with self.standin.as_admin() as connection:
            rows = connection.execute(
                "select coalesce(p.proargnames, '{}'), coalesce(p.proargmodes::text[], '{}'), "
                "array(select format_type(t, null) from unnest(p.proargtypes) t), p.pronargdefaults, "
                "p.proretset, p.provolatile, p.prorettype = 'void'::regtype, r.typtype = 'c' "
                "from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_type r on r.oid = p.prorettype "
                "where n.nspname = 'public' and p.proname = %s and p.prokind = 'f'", [name]).fetchall()
        for names, modes, types, defaults, returns_set, volatility, void, composite in rows:
            inputs = [n for index, n in enumerate(names) if not modes or modes[index] in ("i", "b", "v")]
            if len(inputs) != len(types) or not all(inputs):
                continue  # unnamed parameters: PostgREST's single unnamed json parameter is not stood in for
            parameters = list(zip(inputs, types))
            # Every required parameter given, and nothing that is not a parameter (Plan.hs findProc).
            required = {p for p, _ in parameters[:len(parameters) - defaults]}
            if required <= keys <= set(inputs):
                return Function(parameters, returns_set, volatility, void, composite and not returns_set)
        listed = ", ".join(sorted(keys))
        message = f"Could not find the function public.{name}" + (f"({listed})" if keys else " without parameters")
        searched = (f" with parameter{'s' if len(keys) > 1 else ''} {listed}" if keys else " without parameters")
        if posted:
            searched += " or with a single unnamed json/jsonb parameter"
        raise RestError(404, "PGRST202", message + " in the schema cache",
                        f"Searched for the function public.{name}{searched}, but no matches were found in the "
                        "schema cache.")

    def run(self, request, claims, statement, values):
        with self.standin.as_caller(claims, request.method, f"/rest/v1/{request.table}") as connection:
            cursor = connection.execute(statement, values)
            return cursor.fetchone() if cursor.description else None

    def read(self, request, claims):
        where, values = request.where()
        statement = sql.SQL("select coalesce(json_agg(_row), '[]')::text, count(*) from "
                            "(select {} from {}{}{}{}) _row").format(
            request.selected(), request.relation(), where, request.order(), request.window())
        text, count = self.run(request, claims, statement, values)
        offset = int(request.param("offset") or 0)
        span = f"{offset}-{offset + count - 1}/*" if count else "*/*"
        return Reply(200, text.encode(), [("Content-Range", span)], JSON_TYPE)

    def insert(self, request, claims):
        rows = request.rows()
        names = sql.SQL(", ").join(map(sql.Identifier, rows[0]))
        statement = sql.SQL("insert into {0} ({1}) select {1} from json_populate_recordset(null::{0}, %s::json)")
        statement = statement.format(request.relation(), names)
        if request.prefer("resolution") == "ignore-duplicates":
            target = request.param("on_conflict")
            statement += (sql.SQL(" on conflict ({}) do nothing").format(request.column_list(target))
                          if target else sql.SQL(" on conflict do nothing"))
        return self.write(request, claims, statement, [json.dumps(rows)], created=True)

    def update(self, request, claims):
        row = request.rows(single=True)[0]
        names = sql.SQL(", ").join(map(sql.Identifier, row))
        where, values = request.where()
        statement = sql.SQL("update {0} set ({1}) = (select {1} from json_populate_record(null::{0}, %s::json)){2}")
        statement = statement.format(request.relation(), names, where)
        return self.write(request, claims, statement, [json.dumps(row)] + values)

    def delete(self, request, claims):
        where, values = request.where()
        return self.write(request, claims, sql.SQL("delete from {}{}").format(request.relation(), where), values)

    def write(self, request, claims, statement, values, created=False):
        """Runs an insert, update or delete; Prefer: return=representation answers the rows it wrote."""
        if request.prefer("return") == "representation":
            statement = sql.SQL("with _written as ({} returning *) "
                                "select coalesce(json_agg(_written), '[]')::text from _written").format(statement)
            text = self.run(request, claims, statement, values)[0]
            return Reply(201 if created else 200, text.encode(), [("Content-Range", "*/*")], JSON_TYPE)
        self.run(request, claims, statement, values)
        return Reply(201 if created else 204, b"", [("Content-Range", "*/*")], JSON_TYPE)


class Function:
    """A function PostgREST can call: its input parameters [(name, type)], and what it returns."""

    def __init__(self, parameters, returns_set, volatility, returns_void, composite):
        self.parameters, self.returns_set, self.volatility = parameters, returns_set, volatility
        self.returns_void, self.composite = returns_void, composite


def response_status(setting):
    """The `response.status` a function set (Response.hs decodeGucStatus), or None; not a number: 500
    PGRST112."""
    if not setting:
        return None
    if not setting.strip().isdigit():
        raise RestError(500, "PGRST112", "response.status guc must be a valid status code")
    return int(setting)


def response_headers(setting):
    """The `response.headers` a function set: a JSON array of one-key objects (Response/GucHeader.hs);
    otherwise 500 PGRST111."""
    if not setting:
        return []
    try:
        items = json.loads(setting)
        if not isinstance(items, list) or not all(isinstance(i, dict) and len(i) == 1 for i in items):
            raise ValueError
        return [(key, str(value)) for item in items for key, value in item.items()]
    except ValueError:
        raise RestError(500, "PGRST111", "response.headers guc must be a JSON array composed of objects "
                                         "with a single key and a string value") from None


class RestRequest:
    """One /rest/v1 request, read the way PostgREST reads it."""

    def __init__(self, table, params, headers, body, method):
        self.table, self.params, self.headers, self.body, self.method = table, params, headers, body, method
        self.columns = set()

    def param(self, name):
        return next((value for key, value in self.params if key == name), None)

    def prefer(self, name):
        """One preference of the Prefer header ("return=minimal, resolution=ignore-duplicates")."""
        for item in (self.headers.get("Prefer") or "").split(","):
            key, _, value = item.strip().partition("=")
            if key == name:
                return value
        return None

    def relation(self):
        return sql.Identifier("public", self.table)

    def column(self, name):
        if name not in self.columns:
            raise RestError(400, "42703", f"column {self.table}.{name} does not exist")
        return sql.Identifier(name)

    def column_list(self, text):
        return sql.SQL(", ").join(self.column(name.strip()) for name in text.split(","))

    def selected(self):
        text = (self.param("select") or "*").strip()
        return sql.SQL("*") if text == "*" else self.column_list(text)

    def where(self):
        """The filters (column=operator.value) as a WHERE clause and its values, which go to PostgreSQL
        untyped, so it reads them as the column's type (a date, a timestamp)."""
        conditions, values = [], []
        for name, value in self.params:
            if name in RESERVED:
                continue
            column = self.column(name)
            operator, _, operand = value.partition(".")
            if operator in OPERATORS:
                conditions.append(sql.SQL("{} {} %s").format(column, sql.SQL(OPERATORS[operator])))
                values.append(operand)
            elif operator == "is" and operand in IS_VALUES:
                conditions.append(sql.SQL("{} is {}").format(column, sql.SQL(operand)))
            elif operator == "in" and operand.startswith("(") and operand.endswith(")"):
                items = [item.strip().strip('"') for item in operand[1:-1].split(",")]
                placeholders = sql.SQL(", ").join(sql.Placeholder() * len(items))
                conditions.append(sql.SQL("{} in ({})").format(column, placeholders))
                values.extend(items)
            else:
                raise RestError(400, "PGRST100", f'"failed to parse filter ({value})"',
                                "unexpected operator: use eq, neq, gt, gte, lt, lte, is or in")
        if not conditions:
            return sql.SQL(""), values
        return sql.SQL(" where ") + sql.SQL(" and ").join(conditions), values

    def order(self):
        text = self.param("order")
        if not text:
            return sql.SQL("")
        terms = []
        for term in text.split(","):
            name, *modifiers = term.strip().split(".")
            if any(modifier not in ORDER_MODIFIERS for modifier in modifiers):
                raise RestError(400, "PGRST100", f'"failed to parse order ({text})"')
            terms.append(sql.SQL(" ").join([self.column(name)] + [sql.SQL(ORDER_MODIFIERS[m]) for m in modifiers]))
        return sql.SQL(" order by ") + sql.SQL(", ").join(terms)

    def window(self):
        clause = sql.SQL("")
        for name in ("limit", "offset"):
            value = self.param(name)
            if value is not None:
                if not value.isdigit():
                    raise RestError(400, "PGRST100", f'"failed to parse {name} ({value})"')
                clause += sql.SQL(f" {name} ") + sql.Literal(int(value))
        return clause

    def arguments(self):
        """An RPC's JSON body: one object of named arguments; an empty body is {} (ApiRequest/Payload.hs)."""
        if not self.body:
            return {}
        try:
            payload = json.loads(self.body)
        except ValueError:
            raise RestError(400, "PGRST102", "Empty or invalid json") from None
        if not isinstance(payload, dict):
            raise RestError(400, "PGRST102", "All object keys must match")
        return payload

    def rows(self, single=False):
        """The JSON body: one object or (to insert) an array of objects with the same keys, all columns."""
        try:
            payload = json.loads(self.body or b"")
        except ValueError:
            raise RestError(400, "PGRST102", "Empty or invalid json") from None
        rows = [payload] if isinstance(payload, dict) else payload
        if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) and r for r in rows) \
                or (single and len(rows) != 1):
            raise RestError(400, "PGRST102", "Empty or invalid json")
        if any(set(row) != set(rows[0]) for row in rows):
            raise RestError(400, "PGRST102", "All object keys must match")
        for name in rows[0]:
            if name not in self.columns:
                raise RestError(400, "PGRST204",
                                f"Could not find the '{name}' column of '{self.table}' in the schema cache")
        return rows


def database_error(error, role):
    """PostgreSQL's error as PostgREST answers it."""
    code = error.sqlstate
    if code is None:  # no answer from the database at all
        return Reply(503, error_body("PGRST000", "Could not connect with the database", str(error)),
                     content_type=JSON_TYPE)
    status = http_status(code, role)
    diag = error.diag
    headers = [("WWW-Authenticate", "Bearer")] if status == 401 else []
    return Reply(status, error_body(code, diag.message_primary, diag.message_detail, diag.message_hint),
                 headers, JSON_TYPE)


def http_status(code, role):
    if code == "42501":
        return 401 if role == "anon" else 403
    if code in EXACT_STATUS:
        return EXACT_STATUS[code]
    if code.startswith("PT") and code[2:].isdigit():
        return int(code[2:])
    return CLASS_STATUS.get(code[:2], 400)


def postgrest_expired(exp, now):
    """src/library/PostgREST/Auth/Jwt.hs checkForErrors: `exp` is in the past only when it is before
    now less allowedSkewSeconds (30): a token is still taken for 30 s after it expired."""
    return int(now) - ALLOWED_SKEW_SECONDS > exp


def jwt_error(error):
    """src/library/PostgREST/Error.hs, JwtError: 401 with a WWW-Authenticate header; a token that does
    not decode or verify is PGRST301 (JwtDecodeErr), an expired one PGRST303 (JwtClaimsErr JWTExpired).
    The decode errors are jose-jwt's (Jose.Jwt decode): a structural fault is BadCrypto; no key that can
    take the alg, or none that verifies the signature, is a KeyError with jose-jwt's words as details;
    `alg: none` is BadAlgorithm."""
    details = None
    if error.kind == "expired":
        code, message = "PGRST303", "JWT expired"
    elif error.kind == "empty":
        code, message = "PGRST301", "Empty JWT is sent in Authorization header"
    elif error.kind == "parts":
        code, message = "PGRST301", f"Expected 3 parts in JWT; got {error.parts}"
    elif error.kind == "encoding":
        code, message = "PGRST301", "JWT cryptographic operation failed"
    elif error.kind == "algorithm" and error.algorithm == "none":
        code, message = "PGRST301", "Wrong or unsupported encoding algorithm"
        details = "JWT is unsecured but expected 'alg' was not 'none'"
    else:
        code, message = "PGRST301", "No suitable key or wrong key type"
        details = ("No suitable key was found to decode the JWT" if error.kind == "algorithm"
                   else "None of the keys was able to decode the JWT")
    # invalidTokenHeader: error_description is Haskell's `show` of the message, a quoted string.
    header = ("WWW-Authenticate", f'Bearer error="invalid_token", error_description={json.dumps(message)}')
    return Reply(401, error_body(code, message, details), [header], JSON_TYPE)
