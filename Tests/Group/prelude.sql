-- The few parts of a Supabase project that docs/supabase/schema.sql relies on, for a plain PostgreSQL 15
-- test cluster (Tests/Group/postgres.sh). A real project already has all of this; never run it there.
--
-- Written to behave as Supabase documents them: the API roles and their grants, auth.uid() and
-- auth.jwt() reading the claims PostgREST and the Storage API put in `request.jwt.claims`, Auth's tables
-- (the stand-in's Auth keeps its users, sessions and refresh tokens there), and the storage schema with
-- row-level security switched on and SQL deletes refused. Safe to run again.

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

-- auth: the tables Supabase Auth keeps its users, sessions and refresh tokens in (the columns the stand-in's
-- Auth, Tests/Fakes/auth_api.py, uses, as supabase/auth's migrations define them), and the claim helpers.
-- Only Auth itself (here: the owner) touches these tables; the API roles get no grant on them.
create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;

-- Passwords are bcrypt hashes, as Auth writes them (crypto.GenerateFromPassword, cost 10): pgcrypto's
-- crypt(password, gen_salt('bf', 10)) makes the same `$2a$10$` hashes (how users are seeded in SQL on Supabase).
create schema if not exists extensions;
create extension if not exists pgcrypto with schema extensions;

-- migrations/00_init_auth_schema.up.sql and later additions (confirmed_at, phone, banned_until, deleted_at,
-- is_anonymous, is_sso_user).
create table if not exists auth.users (
    instance_id          uuid,
    id                   uuid primary key,
    aud                  varchar(255),
    role                 varchar(255),
    email                varchar(255),
    encrypted_password   varchar(255),
    email_confirmed_at   timestamptz,
    invited_at           timestamptz,
    confirmation_token   varchar(255),
    confirmation_sent_at timestamptz,
    last_sign_in_at      timestamptz,
    raw_app_meta_data    jsonb,
    raw_user_meta_data   jsonb,
    created_at           timestamptz default now(),
    updated_at           timestamptz default now(),
    phone                text,
    phone_confirmed_at   timestamptz,
    confirmed_at         timestamptz generated always as (least(email_confirmed_at, phone_confirmed_at)) stored,
    banned_until         timestamptz,
    deleted_at           timestamptz,
    is_sso_user          boolean not null default false,
    is_anonymous         boolean not null default false
);
-- migrations/20221215195500_modify_users_email_unique_index.up.sql
create unique index if not exists users_email_partial_key on auth.users (email) where (is_sso_user = false);

-- migrations/20210909172000_create_identities_table.up.sql, with the id key and the generated email of
-- 20231117164230 and 20221215195800.
create table if not exists auth.identities (
    id              uuid primary key default gen_random_uuid(),
    provider_id     text not null,
    user_id         uuid not null references auth.users (id) on delete cascade,
    identity_data   jsonb not null,
    provider        text not null,
    last_sign_in_at timestamptz,
    created_at      timestamptz,
    updated_at      timestamptz,
    email           text generated always as (lower(identity_data ->> 'email')) stored,
    constraint identities_provider_id_provider_unique unique (provider_id, provider)
);

-- migrations/20220811173540_add_sessions_table.up.sql and the columns added since (aal, not_after,
-- refreshed_at, user_agent, ip, tag). Deleting a session deletes its refresh tokens (on delete cascade).
create table if not exists auth.sessions (
    id           uuid primary key,
    user_id      uuid not null references auth.users (id) on delete cascade,
    created_at   timestamptz,
    updated_at   timestamptz,
    factor_id    uuid,
    aal          text,
    not_after    timestamptz,
    refreshed_at timestamp without time zone,
    user_agent   text,
    ip           inet,
    tag          text
);

-- migrations/00_init_auth_schema.up.sql with the parent (20210927181326, its foreign key dropped in
-- 20221114143410) and the session (20220811173540).
create table if not exists auth.refresh_tokens (
    instance_id uuid,
    id          bigserial primary key,
    token       varchar(255) constraint refresh_tokens_token_unique unique,
    user_id     varchar(255),
    revoked     boolean,
    created_at  timestamptz,
    updated_at  timestamptz,
    parent      varchar(255),
    session_id  uuid references auth.sessions (id) on delete cascade
);
create index if not exists refresh_tokens_parent_idx on auth.refresh_tokens (parent);
create index if not exists refresh_tokens_session_id_revoked_idx on auth.refresh_tokens (session_id, revoked);

-- migrations/20221003041349_add_mfa_schema.up.sql: how each session was signed in (the token's `amr`).
create table if not exists auth.mfa_amr_claims (
    id                    uuid not null,
    session_id            uuid not null references auth.sessions (id) on delete cascade,
    created_at            timestamptz not null,
    updated_at            timestamptz not null,
    authentication_method text not null,
    constraint mfa_amr_claims_session_id_authentication_method_pkey unique (session_id, authentication_method)
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

-- Supabase Storage refuses SQL deletes of its tables: only its API, which sets storage.allow_delete_query
-- in each request's transaction, may delete (supabase/storage migrations/tenant/0055-prevent-direct-deletes.sql).
-- Deleting objects in SQL would leave their files behind.
create or replace function storage.protect_delete() returns trigger
language plpgsql as $$
begin
    if coalesce(current_setting('storage.allow_delete_query', true), 'false') != 'true' then
        raise exception 'Direct deletion from storage tables is not allowed. Use the Storage API instead.'
            using hint = 'This prevents accidental data loss from orphaned objects.',
                  errcode = '42501';
    end if;
    return null;
end;
$$;

drop trigger if exists protect_buckets_delete on storage.buckets;
create trigger protect_buckets_delete
    before delete on storage.buckets
    for each statement
    execute function storage.protect_delete();

drop trigger if exists protect_objects_delete on storage.objects;
create trigger protect_objects_delete
    before delete on storage.objects
    for each statement
    execute function storage.protect_delete();
