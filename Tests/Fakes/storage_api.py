"""The stand-in's Storage API: /storage/v1/object routes. Like Supabase's storage-api, it writes and reads
the storage.objects rows in the database as the caller, so the bucket's policies decide; the bytes are
kept here in memory, by object id.

Errors look like storage-api's: HTTP 400 (500 for its own faults) with the real status in the body,
{"statusCode": "403", "code": "AccessDenied", "error": "Unauthorized", "message": ...}; a token that does
not verify or has expired is such a 403 in jose's words (src/http/plugins/jwt.ts). The gateway asks no
apikey here (kong.yml's storage-v1 has no key-auth).
"""
import email.parser
import email.policy
import hashlib
import json
import re
import threading
from email.utils import formatdate
from urllib.parse import unquote

from groupdb import psycopg

import jwt_hs256
from reply import Reply

# The characters storage-api accepts in an object's name (its \w is ASCII: no accented letters).
VALID_KEY = re.compile(r"^[\w/!\-.*'() &$@=;:+,?]+$", re.ASCII)
OBJECT_COLUMNS = ("id, bucket_id, name, owner, owner_id, version, created_at, updated_at, last_accessed_at, "
                  "metadata, user_metadata")


class StorageError(Exception):
    def __init__(self, status_code, code, message, error=None):
        super().__init__(message)
        http = 500 if status_code == "500" else 400
        self.reply = Reply(http, {"statusCode": status_code, "code": code, "error": error or code, "message": message})


def no_such_key():
    return StorageError("404", "NoSuchKey", "Object not found", "not_found")


class StorageAPI:
    def __init__(self, standin):
        self.standin = standin
        self.blobs = {}
        self.lock = threading.Lock()

    def forget_all(self):
        with self.lock:
            self.blobs.clear()

    def handle(self, method, path, headers, body):
        """`path` is what follows /storage/v1/object/, still URL-encoded."""
        try:
            claims = self.caller(headers)
        except jwt_hs256.JWTError as error:
            # src/http/plugins/jwt.ts: ERRORS.AccessDenied(err.message) with jose's words.
            return StorageError("403", "AccessDenied", jose_message(error), "Unauthorized").reply
        if method == "GET" and path.startswith("authenticated/"):
            path = path[len("authenticated/"):]
        bucket, _, name = path.partition("/")
        bucket, name = unquote(bucket), unquote(name)
        try:
            limits = self.bucket_limits(bucket)
            if method == "POST" and name:
                return self.upload(claims, bucket, name, headers, body, limits)
            if method == "GET" and name:
                return self.download(claims, bucket, name, headers)
            if method == "DELETE":
                return self.delete_one(claims, bucket, name) if name else self.delete_many(claims, bucket, body)
            raise StorageError("404", "InvalidRequest", f"Route {method}:/object/{path} not found", "Not Found")
        except StorageError as error:
            return error.reply
        except psycopg.Error as error:
            return database_error(error).reply

    def caller(self, headers):
        """The caller's claims. The gateway has no key check on storage-v1 (kong.yml), only the
        Authorization it passes or makes; src/http/plugins/jwt.ts takes that header less `Bearer `, and
        verifies it with jose (src/internal/auth/jwt.ts verifyJWT): an empty or bad token is refused."""
        authorization = self.standin.gateway("storage", headers) or ""
        token = re.sub(r"^Bearer\s+", "", authorization, flags=re.IGNORECASE)
        return jwt_hs256.verify(token, self.standin.secret, now=self.standin.now(), expired=jose_expired)

    def bucket_limits(self, bucket):
        """The bucket's size limit and MIME types (read as the service, as storage-api does)."""
        with self.standin.as_admin() as connection:
            row = connection.execute("select file_size_limit, allowed_mime_types from storage.buckets where id = %s",
                                     [bucket]).fetchone()
        if row is None:
            raise StorageError("404", "NoSuchBucket", "Bucket not found", "Bucket not found")
        return row

    def upload(self, claims, bucket, name, headers, body, limits):
        """POST: a new object; with x-upsert: true, a new or rewritten one. Answers {"Id", "Key"}.
        As src/storage/uploader.ts reads the request: a multipart/form-data body (what the client
        libraries send) gives the first file, its type (or the form's contentType field) and the form's
        cacheControl as `max-age=N`, else `no-cache`; any other body is the file itself, typed by its
        Content-Type (else application/octet-stream), cached as its Cache-Control header says (else
        `no-cache`)."""
        if not VALID_KEY.match(name):
            raise StorageError("400", "InvalidKey", f"Invalid key: {name}")
        size_limit, mime_types = limits
        content_type = headers.get("Content-Type") or ""
        if content_type.startswith("multipart/form-data"):
            body, mimetype, cache_control = form_upload(content_type, body)
        else:
            mimetype = content_type or "application/octet-stream"
            cache_control = headers.get("Cache-Control") or "no-cache"
        mimetype = mimetype.split(";")[0].strip()
        if size_limit and len(body) > size_limit:
            raise StorageError("413", "EntityTooLarge", "The object exceeded the maximum allowed size",
                               "Payload too large")
        if mime_types and not any(allowed_mime(mimetype, allowed) for allowed in mime_types):
            raise StorageError("415", "InvalidMimeType", f"mime type {mimetype} is not supported", "invalid_mime_type")
        etag = '"' + hashlib.md5(body).hexdigest() + '"'
        metadata = {"eTag": etag, "size": len(body), "mimetype": mimetype, "lastModified": formatdate(usegmt=True),
                    "contentLength": len(body), "httpStatusCode": 200,
                    "cacheControl": cache_control}
        statement = ("insert into storage.objects (bucket_id, name, owner, owner_id, metadata, version) "
                     "values (%s, %s, %s, %s, %s, gen_random_uuid()::text)")
        if headers.get("x-upsert") == "true":
            statement += (" on conflict (bucket_id, name) do update set owner = excluded.owner, "
                          "owner_id = excluded.owner_id, metadata = excluded.metadata, version = excluded.version, "
                          "updated_at = now(), last_accessed_at = now()")
        owner = claims.get("sub")
        with self.standin.as_caller(claims, "POST", f"/object/{bucket}/{name}", storage_api=True) as connection:
            object_id = connection.execute(statement + " returning id", [bucket, name, owner, owner,
                                                                         json.dumps(metadata)]).fetchone()[0]
            # Stored while the row is still locked, so concurrent rewrites keep the bytes of the last commit.
            with self.lock:
                self.blobs[str(object_id)] = body
        return Reply(200, {"Id": str(object_id), "Key": f"{bucket}/{name}"})

    def download(self, claims, bucket, name, headers):
        """GET: the object if the caller may read it; Range: bytes=N-, N-M or -K answers 206."""
        with self.standin.as_caller(claims, "GET", f"/object/{bucket}/{name}", storage_api=True) as connection:
            row = connection.execute("select id, metadata, updated_at from storage.objects "
                                     "where bucket_id = %s and name = %s", [bucket, name]).fetchone()
        with self.lock:
            data = self.blobs.get(str(row[0])) if row else None
        if data is None:
            raise no_such_key()
        _, metadata, updated_at = row
        head = [("Cache-Control", metadata.get("cacheControl", "no-cache")), ("ETag", metadata.get("eTag", "")),
                ("Last-Modified", formatdate(updated_at.timestamp(), usegmt=True)), ("Accept-Ranges", "bytes")]
        content_type = metadata.get("mimetype", "application/octet-stream")
        wanted = byte_range(headers.get("Range"), len(data))
        if wanted is None:
            return Reply(200, data, head, content_type)
        if wanted == "unsatisfiable":
            reply = StorageError("416", "InvalidRange", "The requested range is not satisfiable", "InvalidRange").reply
            reply.status, reply.headers = 416, [("Content-Range", f"bytes */{len(data)}")]
            return reply
        start, end = wanted
        return Reply(206, data[start:end + 1], head + [("Content-Range", f"bytes {start}-{end}/{len(data)}")],
                     content_type)

    def delete_many(self, claims, bucket, body):
        """DELETE /object/BUCKET {"prefixes": [names]}: deletes those the caller may delete and answers
        them (names that are gone, or not the caller's, are left out; that is not an error)."""
        try:
            prefixes = json.loads(body or b"{}")["prefixes"]
        except (ValueError, KeyError, TypeError):
            raise StorageError("400", "InvalidRequest", "body must have required property 'prefixes'",
                               "Bad Request") from None
        if not isinstance(prefixes, list) or not 1 <= len(prefixes) <= 1000 \
                or not all(isinstance(p, str) for p in prefixes):
            raise StorageError("400", "InvalidRequest", "body/prefixes must be an array of 1 to 1000 strings",
                               "Bad Request")
        with self.standin.as_caller(claims, "DELETE", f"/object/{bucket}", storage_api=True) as connection:
            text = connection.execute(
                f"with gone as (delete from storage.objects where bucket_id = %s and name = any(%s) "
                f"returning {OBJECT_COLUMNS}) select coalesce(json_agg(gone), '[]')::text from gone",
                [bucket, prefixes]).fetchone()[0]
        self.forget(item["id"] for item in json.loads(text))
        return Reply(200, text.encode())

    def delete_one(self, claims, bucket, name):
        with self.standin.as_caller(claims, "DELETE", f"/object/{bucket}/{name}", storage_api=True) as connection:
            ids = connection.execute("delete from storage.objects where bucket_id = %s and name = %s returning id",
                                     [bucket, name]).fetchall()
        if not ids:
            raise no_such_key()
        self.forget(str(object_id) for (object_id,) in ids)
        return Reply(200, {"message": "Successfully deleted"})

    def forget(self, object_ids):
        with self.lock:
            for object_id in object_ids:
                self.blobs.pop(str(object_id), None)


def jose_expired(exp, now):
    """jose's jwtVerify (src/lib/jwt_claims_set.ts, no clockTolerance): expired when exp <= now, now in
    whole seconds."""
    return exp <= int(now)


def jose_message(error):
    """The words of jose's errors (JWSInvalid, JOSEAlgNotAllowed, JWSSignatureVerificationFailed,
    JWTExpired) for a refused token."""
    return {"empty": "Invalid Compact JWS", "parts": "Invalid Compact JWS",
            "encoding": "JWS Protected Header is invalid",
            "algorithm": '"alg" (Algorithm) Header Parameter value not allowed',
            "signature": "signature verification failed",
            "expired": '"exp" claim timestamp check failed'}[error.kind]


def form_upload(content_type, body):
    """(file bytes, MIME type, Cache-Control) of a multipart/form-data upload, as uploader.ts reads it
    with @fastify/multipart's request.file(): the first file part, and contentType and cacheControl from
    the fields sent before it."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    fields, file_part = {}, None
    for part in message.iter_parts():
        if part.get_filename() is not None:
            file_part = part
            break
        if part.get_param("name", header="content-disposition"):
            fields[part.get_param("name", header="content-disposition")] = part.get_content().strip()
    if file_part is None:
        raise StorageError("400", "InvalidRequest", "No content provided", "Bad Request")
    mimetype = fields.get("contentType") or file_part.get_content_type()
    cache_time = fields.get("cacheControl")
    return file_part.get_payload(decode=True) or b"", mimetype, f"max-age={cache_time}" if cache_time else "no-cache"


def allowed_mime(mimetype, allowed):
    return allowed == mimetype or (allowed.endswith("/*") and mimetype.startswith(allowed[:-1]))


def byte_range(header, size):
    """(start, end) of a single `bytes=` range, "unsatisfiable", or None for no usable Range header
    (which, as in HTTP, means the whole object)."""
    match = re.fullmatch(r"\s*bytes=(\d*)-(\d*)\s*", header or "")
    if not match or match.group(1) == match.group(2) == "":
        return None
    first, last = match.groups()
    if first == "":  # the last N bytes
        count = int(last)
        return (max(size - count, 0), size - 1) if count and size else "unsatisfiable"
    start = int(first)
    end = min(int(last), size - 1) if last else size - 1
    if start >= size or (last and int(last) < start):
        return "unsatisfiable" if start >= size else None
    return start, end


def database_error(error):
    """PostgreSQL's error as storage-api answers it (its DBError.fromDBError)."""
    code = error.sqlstate
    if code == "42501":
        message = ("new row violates row-level security policy" if "row-level security" in str(error)
                   else error.diag.message_primary)
        return StorageError("403", "AccessDenied", message, "Unauthorized")
    if code == "23505":
        return StorageError("409", "ResourceAlreadyExists", "The resource already exists", "Duplicate")
    if code == "23503":
        return StorageError("404", "InvalidRequest", "The related resource does not exist")
    if code == "22P02":
        return StorageError("400", "InvalidParameter", error.diag.message_primary or "Invalid Parameter value")
    return StorageError("500", "DatabaseError", f"database error, code: {code}")
