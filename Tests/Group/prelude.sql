-- The few parts of a Supabase project that docs/supabase/schema.sql relies on, for a plain PostgreSQL 15
-- test cluster (Tests/Group/postgres.sh). A real project already has all of this; never run it there.
--
-- Written to behave as Supabase documents them: the API roles and their grants, auth.uid() and
-- auth.jwt() reading the claims PostgREST and the Storage API put in `request.jwt.claims`, and the storage
-- schema with row-level security switched on. Safe to run again.

-- The API roles. PostgREST and the Storage API log in as `authenticator` and switch, per request, to the
-- role named in the caller's JWT: `anon` (the project's public key), `authenticated` (a signed-in user:
-- each station) or `service_role` (the secret key, which bypasses row-level security).
do $$
begin
    if not exists (select from pg_roles where rolname = 'anon') then
        create role anon nologin noinherit;
    end if;
    if not exists (select from pg_roles where rolname = 'authenticated') then
        create role authenticated nologin noinherit;
    end if;
    if not exists (select from pg_roles where rolname = 'service_role') then
        create role service_role nologin noinherit bypassrls;
    end if;
    if not exists (select from pg_roles where rolname = 'authenticator') then
        create role authenticator login noinherit;
    end if;
end
$$;
grant anon, authenticated, service_role to authenticator;

-- What the API roles may touch in `public`, as a new Supabase project grants it: everything, on tables and
-- functions created later by the admin too. Row-level security and the schema's own revokes narrow it.
grant usage on schema public to anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;

-- auth: the users table (only what the schema references) and the claim helpers.
create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;

create table if not exists auth.users (
    id         uuid primary key,
    email      text,
    created_at timestamptz not null default now()
);

-- The caller's user id: the `sub` claim of its JWT, or null for the anon key and the SQL editor. Reads the
-- per-claim setting older PostgREST versions used first, then the JSON of all claims.
create or replace function auth.uid() returns uuid
language sql stable as $$
    select coalesce(
        nullif(current_setting('request.jwt.claim.sub', true), ''),
        nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub'
    )::uuid
$$;

-- All of the caller's claims as JSON (null outside a request).
create or replace function auth.jwt() returns jsonb
language sql stable as $$
    select coalesce(
        nullif(current_setting('request.jwt.claim', true), ''),
        nullif(current_setting('request.jwt.claims', true), '')
    )::jsonb
$$;

-- The caller's role claim: anon, authenticated or service_role.
create or replace function auth.role() returns text
language sql stable as $$
    select coalesce(
        nullif(current_setting('request.jwt.claim.role', true), ''),
        nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role'
    )
$$;

-- storage: buckets and objects as the Storage API keeps them. The API writes these rows under the
-- caller's role, so the policies on storage.objects decide who may upload, read and delete.
create schema if not exists storage;
grant usage on schema storage to anon, authenticated, service_role;

create table if not exists storage.buckets (
    id                 text primary key,
    name               text not null unique,
    owner              uuid,
    owner_id           text,
    public             boolean not null default false,
    file_size_limit    bigint,
    allowed_mime_types text[],
    created_at         timestamptz not null default now(),
    updated_at         timestamptz not null default now()
);

create table if not exists storage.objects (
    id               uuid primary key default gen_random_uuid(),
    bucket_id        text references storage.buckets (id),
    name             text,
    owner            uuid,       -- deprecated by Supabase in favour of owner_id; both are the uploader's sub
    owner_id         text,
    created_at       timestamptz not null default now(),
    updated_at       timestamptz not null default now(),
    last_accessed_at timestamptz not null default now(),
    metadata         jsonb,
    user_metadata    jsonb,
    version          text,
    path_tokens      text[] generated always as (string_to_array(name, '/')) stored
);
create unique index if not exists bucketid_objname on storage.objects (bucket_id, name);

alter table storage.buckets enable row level security;
alter table storage.objects enable row level security;
grant all on storage.buckets, storage.objects to anon, authenticated, service_role;

-- The folders of an object's name: 'Family/2026-03-10/a.jpg' -> {Family,2026-03-10}.
create or replace function storage.foldername(name text) returns text[]
language sql immutable as $$
    select (string_to_array(name, '/'))[1:cardinality(string_to_array(name, '/')) - 1]
$$;

-- The last part of an object's name: 'Family/2026-03-10/a.jpg' -> 'a.jpg'.
create or replace function storage.filename(name text) returns text
language sql immutable as $$
    select (string_to_array(name, '/'))[cardinality(string_to_array(name, '/'))]
$$;
