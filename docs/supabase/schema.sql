-- SnapStation's Supabase backend: run this whole file in your project's SQL editor. Running it again is
-- safe: it creates what is missing and replaces its own functions, triggers, policies and job.
--
-- The model
--   groups        a small private group, known to the stations by its name; at most 12 members. Its photos
--                 are under its own folder in the bucket, a random id (groups.folder), not its name.
--   members       one row per station in a group: the Supabase user the station signs in as (its key is
--                 that user's JWT), the name the other stations show, and when it last shared a photo
--                 there. A station may be in several groups.
--   group_invites one invite code per group (only its hash is kept), valid 7 days, replaced on request.
--   group_photos  one row per shared photo. The file is in the private bucket "snapstation" at
--                 FOLDER/DAY/PHOTO.jpg (FOLDER the group's folder), uploaded first by the same member; the row
--                 says "this photo is shared".
--
-- Give each station its own Supabase user (Authentication -> Users) that it signs in as, with the
-- project's anon (or publishable) key as the `apikey`. Never give a station the service-role key: it
-- bypasses every rule below. Signed-in users make, join and list groups through five functions, which the
-- REST API serves at /rest/v1/rpc/NAME (docs/supabase/groups.md): create_group, join_group, group_invite,
-- leave_group and group_members. Nothing else in the API adds, changes or deletes a group or a member;
-- the admin can still do it here (see the example at the end).
--
-- Tests/Group/check_rules.py checks every rule below against a real PostgreSQL.

-- ---------------------------------------------------------------------------------------------------------
-- Groups and members

create table if not exists public.groups (
    id         bigint generated always as identity primary key,
    -- What the members call the group. It holds only what Supabase Storage accepts in a name (it was the
    -- group's folder in the bucket before `folder`, below, and stations still name folders after it):
    -- ASCII letters and digits, spaces and _ ! - . * ' ( ) & $ @ = ; : + , ? (no slash, no accented letters).
    name       text not null unique
               constraint group_name_length check (length(name) between 1 and 100)
               constraint group_name_is_a_folder_name check (name ~ '^[A-Za-z0-9_!.*''() &$@=;:+,?-]+$'),
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()   -- also touched whenever a member joins
);
-- The group's folder in the bucket: its photos are FOLDER/DAY/PHOTO.jpg, FOLDER this id as lowercase text.
-- Random rather than the name: a name is free again when the group's last member leaves, and a new group
-- of that name must not read what the old one left in the bucket. A member reads it from its group's row
-- (GET /rest/v1/groups?select=folder&name=eq.NAME); anyone else sees no row. An existing group gets one
-- here, and its photos under GROUP/ become unreadable to the other members (docs/supabase/migrations.md).
alter table public.groups add column if not exists folder uuid not null default gen_random_uuid()
    constraint group_folder_unique unique;

create table if not exists public.members (
    id         bigint generated always as identity primary key,
    group_id   bigint not null references public.groups (id) on delete cascade,
    user_id    uuid not null references auth.users (id) on delete cascade,   -- the station's user
    name       text not null constraint member_name_length check (length(name) between 1 and 60),
    created_at timestamptz not null default now(),
    constraint one_membership_per_group unique (group_id, user_id)
);
-- When the member last shared a photo into the group (null until it does), set by the server (see
-- group_photos below). Kept here because a photo's own row is deleted 48 hours on.
alter table public.members add column if not exists last_shared_at timestamptz;

-- A group has at most 12 members. Two stations joining at the same moment must not both see "11" and
-- both get in, so a join first updates the group's row: a second join to the same group waits there until
-- the first commits, and then counts it. (Under repeatable read or serializable isolation the second join
-- fails with a serialization error instead, which is just as safe.)
create or replace function public.snapstation_limit_members() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
    the_group text;
    members_now integer;
begin
    if tg_op = 'UPDATE' and new.group_id = old.group_id then
        return new;
    end if;
    update public.groups set updated_at = now() where id = new.group_id returning name into the_group;
    select count(*) into members_now from public.members where group_id = new.group_id;
    if members_now >= 12 then
        raise exception 'group % already has 12 members', the_group
            using errcode = 'check_violation', hint = 'Remove a member first, or start another group.';
    end if;
    return new;
end
$$;

create or replace trigger at_most_12_members
    before insert or update of group_id on public.members
    for each row execute function public.snapstation_limit_members();

-- The names of the groups the caller belongs to (none for the anon key or an unknown user). The policies
-- below use it; it reads members as its owner, so the members policy does not have to call itself.
create or replace function public.snapstation_my_groups() returns setof text
language sql stable security definer set search_path = '' as $$
    select g.name
    from public.groups g join public.members m on m.group_id = g.id
    where m.user_id = auth.uid()
$$;
revoke all on function public.snapstation_my_groups() from public, anon;
grant execute on function public.snapstation_my_groups() to authenticated, service_role;

-- The folders of the groups the caller belongs to, as text (lowercase): the bucket's policies use it, as
-- the tables' policies use the names.
create or replace function public.snapstation_my_group_folders() returns setof text
language sql stable security definer set search_path = '' as $$
    select g.folder::text
    from public.groups g join public.members m on m.group_id = g.id
    where m.user_id = auth.uid()
$$;
revoke all on function public.snapstation_my_group_folders() from public, anon;
grant execute on function public.snapstation_my_group_folders() to authenticated, service_role;

-- ---------------------------------------------------------------------------------------------------------
-- Shared photos

-- The table of SnapStation before groups had members (one photo per group per day, no member) is
-- replaced: its photos expired within 48 hours of being shared, and no station reads it any more.
do $$
begin
    if to_regclass('public.group_photos') is not null and not exists (
        select from information_schema.columns
        where table_schema = 'public' and table_name = 'group_photos' and column_name = 'member_id'
    ) then
        drop table public.group_photos;
    end if;
end
$$;

create table if not exists public.group_photos (
    id          bigint generated always as identity primary key,
    group_name  text        not null references public.groups (name) on update cascade on delete cascade,
    -- Who shared it: always the caller (the insert policy refuses anyone else); the station may leave it out.
    member_id   uuid        not null default auth.uid(),
    -- The member's name in this group, copied by the server (below) so readers need no join.
    member_name text        not null,
    day         date        not null,                -- the station's local day (the insert policy: a current one)
    photo_id    text        not null,                -- the station's id for the photo (photo_id_is_a_plain_name)
    object_path text        not null,                -- FOLDER/DAY/PHOTO.jpg in the bucket, not URL-encoded
    byte_size   bigint,                              -- optional: the JPEG's size
    taken_at    timestamptz not null,                -- set by the server: when the row came in
    expires_at  timestamptz not null,                -- at most 48 hours after that (the server sees to it)
    created_at  timestamptz not null default now(),
    -- A retried insert of the same photo is recognised: 409 naming one_row_per_photo, or 201 when the
    -- station asks the REST API to ignore that duplicate (?on_conflict=member_id,photo_id with
    -- Prefer: resolution=ignore-duplicates; member_id may be left out of the row, the server fills it).
    -- Photo ids are each member's own: two members may use the same one.
    constraint one_row_per_photo unique (member_id, photo_id),
    -- The daily rule is each member's: one photo per member per group per day. A second photo that day
    -- fails with 23505, which the REST API answers with HTTP 409 naming this constraint.
    constraint one_photo_per_member_per_day unique (group_name, member_id, day),
    constraint byte_size_up_to_20_mb check (byte_size > 0 and byte_size <= 20 * 1024 * 1024),
    constraint expires_within_48_hours check (expires_at > taken_at and expires_at <= taken_at + interval '48 hours')
);
create index if not exists group_photos_expiry on public.group_photos (expires_at);

-- Stations make file names of photo ids, so an id is letters, digits, - and _ only, 1 to 64 of them: no
-- slash, no dot, nothing a file system reads. The previous versions of this file checked only the length,
-- which let a member share `../../x`; a row like that still here was never a photo, and goes.
alter table public.group_photos drop constraint if exists photo_id_length;
do $$
begin
    if not exists (
        select from pg_catalog.pg_constraint
        where conrelid = 'public.group_photos'::regclass and conname = 'photo_id_is_a_plain_name'
    ) then
        delete from public.group_photos where photo_id !~ '^[A-Za-z0-9_-]{1,64}$';
        alter table public.group_photos
            add constraint photo_id_is_a_plain_name check (photo_id ~ '^[A-Za-z0-9_-]{1,64}$');
    end if;
end
$$;

-- The row's folder must be its group's, which a check constraint cannot look up: the insert policy checks
-- it now (below). The previous versions' constraint compared it with the group's name.
alter table public.group_photos drop constraint if exists object_in_group_folder;

-- The previous version of this file made photo ids unique across the whole project: a clash with any
-- other station's id made the REST API ignore the photo (on_conflict=photo_id). Now they are unique per
-- member. A station that still sends on_conflict=photo_id gets 400 (42P10: no unique constraint matches).
do $$
begin
    if exists (
        select from pg_catalog.pg_constraint
        where conrelid = 'public.group_photos'::regclass and conname = 'one_row_per_photo'
          and pg_catalog.pg_get_constraintdef(oid) = 'UNIQUE (photo_id)'
    ) then
        alter table public.group_photos drop constraint one_row_per_photo;
        alter table public.group_photos add constraint one_row_per_photo unique (member_id, photo_id);
    end if;
end
$$;

-- The member's name comes from members (a station may not send it: see the grants below); a caller who
-- is not a member of the group gets no name, and the insert policy refuses the row.
create or replace function public.snapstation_fill_member_name() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
    new.member_name := (
        select m.name
        from public.members m join public.groups g on g.id = m.group_id
        where g.name = new.group_name and m.user_id = new.member_id
    );
    return new;
end
$$;

create or replace trigger fill_member_name
    before insert on public.group_photos
    for each row execute function public.snapstation_fill_member_name();

-- The server's clock, not the member's: taken_at is when the row came in, and the photo expires at most 48
-- hours after that (a station's earlier expiry is kept; one already past is refused by
-- expires_within_48_hours). Together with the day rule of the insert policy, a member cannot keep more
-- photos visible at once by choosing their days and times (docs/supabase/groups.md, "One photo a day").
create or replace function public.snapstation_stamp_share() returns trigger
language plpgsql set search_path = '' as $$
begin
    new.taken_at := pg_catalog.now();
    new.expires_at := least(coalesce(new.expires_at, pg_catalog.now() + interval '48 hours'),
                            pg_catalog.now() + interval '48 hours');
    return new;
end
$$;

create or replace trigger stamp_share
    before insert on public.group_photos
    for each row execute function public.snapstation_stamp_share();

-- Whether `share_day` is a date somewhere on Earth at `moment`. Local times run from UTC-12 to UTC+14, so
-- the days current at any moment are the UTC-12 date to the UTC+14 date: two or three of them. The insert
-- policy asks it with now(): every station's own day passes, while it lasts somewhere.
create or replace function public.snapstation_day_is_current(share_day date, moment timestamptz) returns boolean
language sql immutable set search_path = '' as $$
    select share_day between ((moment at time zone 'UTC') - interval '12 hours')::date
                         and ((moment at time zone 'UTC') + interval '14 hours')::date
$$;
revoke all on function public.snapstation_day_is_current(date, timestamptz) from public, anon;
grant execute on function public.snapstation_day_is_current(date, timestamptz) to authenticated, service_role;

-- Each share stamps the member's last_shared_at (stations have no update grant on members: this runs as
-- its owner). After the insert, so a retried photo the REST API ignores (ignore-duplicates) does not
-- count again, and a refused one not at all. greatest() keeps the latest when an older row comes in late.
create or replace function public.snapstation_note_share() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
    update public.members m
    set last_shared_at = greatest(m.last_shared_at, new.created_at)
    from public.groups g
    where g.id = m.group_id and g.name = new.group_name and m.user_id = new.member_id;
    return null;
end
$$;

create or replace trigger note_last_share
    after insert on public.group_photos
    for each row execute function public.snapstation_note_share();

-- Members who shared before last_shared_at existed: their latest row still there, if any.
update public.members m
set last_shared_at = p.latest
from (select group_name, member_id, max(created_at) as latest from public.group_photos group by 1, 2) p
    join public.groups g on g.name = p.group_name
where m.last_shared_at is null and m.group_id = g.id and m.user_id = p.member_id;

-- ---------------------------------------------------------------------------------------------------------
-- Who may do what through the API (row-level security)

alter table public.groups enable row level security;
alter table public.members enable row level security;
alter table public.group_photos enable row level security;

-- The anon key alone may do nothing here. Signed-in stations may read (policies below decide which rows)
-- and insert photos, naming only the columns the station sets: the server sets id, member_name and
-- created_at. Nobody updates or deletes through the API; the cleanup below deletes expired rows.
revoke all on public.groups, public.members, public.group_photos from anon, authenticated;
grant select on public.groups, public.members, public.group_photos to authenticated;
grant insert (group_name, member_id, day, photo_id, object_path, byte_size, taken_at, expires_at)
    on public.group_photos to authenticated;

drop policy if exists "members see their groups" on public.groups;
create policy "members see their groups" on public.groups
    for select to authenticated
    using (name in (select public.snapstation_my_groups()));

drop policy if exists "members see who else is in their groups" on public.members;
create policy "members see who else is in their groups" on public.members
    for select to authenticated
    using (group_id in (select g.id from public.groups g where g.name in (select public.snapstation_my_groups())));

-- A member shares only as itself, only into its own groups, and only for a day that is current somewhere
-- on Earth now (a station's own day is, until it has ended everywhere; taken_at and expires_at are the
-- server's, above). The row names a photo that is already in the bucket, uploaded by the same member, under
-- FOLDER/DAY/ (the row's group's folder and its day; deeper folders are allowed, e.g.
-- FOLDER/DAY/MEMBER/PHOTO.jpg): so no member lists another member's object as its own. Upload first, then
-- insert the row (the station does; any other client must too: a row whose object is not there yet is
-- refused, 403 42501). (A policy rather than a check: it binds the stations, not the admin.) There is no
-- update policy and no update grant: rows are never changed through the API.
drop policy if exists "members share into their groups" on public.group_photos;
create policy "members share into their groups" on public.group_photos
    for insert to authenticated
    with check (
        member_id = (select auth.uid())
        and group_name in (select public.snapstation_my_groups())
        and public.snapstation_day_is_current(day, now())
        and (storage.foldername(object_path))[1:2] = array[
            (select g.folder::text from public.groups g where g.name = group_photos.group_name),
            to_char(day, 'YYYY-MM-DD')]
        and exists (
            select from storage.objects o
            where o.bucket_id = 'snapstation' and o.name = object_path and o.owner_id = (select auth.uid()::text)
        )
    );

-- A member reads its groups' photos until they expire; anyone else reads nothing.
drop policy if exists "members read their groups' photos" on public.group_photos;
create policy "members read their groups' photos" on public.group_photos
    for select to authenticated
    using (expires_at > now() and group_name in (select public.snapstation_my_groups()));

-- ---------------------------------------------------------------------------------------------------------
-- Storage: the private bucket, up to 20 MB per file, photos and sticker cut-outs only

insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('snapstation', 'snapstation', false, 20 * 1024 * 1024, array['image/jpeg', 'image/png'])
on conflict (id) do update
set public = false, file_size_limit = excluded.file_size_limit, allowed_mime_types = excluded.allowed_mime_types;

-- The Storage API writes storage.objects under the caller's role, with owner_id = the caller's user id, so
-- these policies are the bucket's rules. An object's first folder is its group's folder (groups.folder);
-- objects under a group's name, as the previous versions of this file had them, are their owners' alone.

-- The first version of this file let any signed-in user upload and read anything in the bucket. Policies
-- add up (any one that allows is enough), so those must go for the rules below to hold.
drop policy if exists "stations upload photos" on storage.objects;
drop policy if exists "stations rewrite photos" on storage.objects;
drop policy if exists "read photos" on storage.objects;

-- Upload only into the folders of one's own groups.
drop policy if exists "snapstation: members upload into their groups" on storage.objects;
create policy "snapstation: members upload into their groups" on storage.objects
    for insert to authenticated
    with check (
        bucket_id = 'snapstation'
        and (storage.foldername(name))[1] in (select public.snapstation_my_group_folders())
    );

-- A retried upload rewrites its object (x-upsert), which needs update, and select on the old row: only
-- one's own objects, and only within one's groups.
drop policy if exists "snapstation: members rewrite their own uploads" on storage.objects;
create policy "snapstation: members rewrite their own uploads" on storage.objects
    for update to authenticated
    using (bucket_id = 'snapstation' and owner_id = (select auth.uid()::text))
    with check (
        bucket_id = 'snapstation'
        and owner_id = (select auth.uid()::text)
        and (storage.foldername(name))[1] in (select public.snapstation_my_group_folders())
    );

-- Read every object of one's groups (the slideshow downloads the other members' photos).
drop policy if exists "snapstation: members read their groups" on storage.objects;
create policy "snapstation: members read their groups" on storage.objects
    for select to authenticated
    using (
        bucket_id = 'snapstation'
        and (storage.foldername(name))[1] in (select public.snapstation_my_group_folders())
    );

-- Read one's own objects wherever they are, also after leaving their group: Storage's delete reads the
-- rows it deletes, so without this a station could not delete what it left behind (leave_group, below).
drop policy if exists "snapstation: members read their own uploads" on storage.objects;
create policy "snapstation: members read their own uploads" on storage.objects
    for select to authenticated
    using (bucket_id = 'snapstation' and owner_id = (select auth.uid()::text));

-- Delete only one's own objects: each station deletes its photos 48 hours after taking them, through the
-- Storage API (which also removes the file). A delete of anyone else's object deletes nothing.
drop policy if exists "snapstation: members delete their own uploads" on storage.objects;
create policy "snapstation: members delete their own uploads" on storage.objects
    for delete to authenticated
    using (bucket_id = 'snapstation' and owner_id = (select auth.uid()::text));

-- ---------------------------------------------------------------------------------------------------------
-- Groups without SQL: create_group, join_group, group_invite, leave_group and group_members
--
-- A signed-in user (a station, or a phone) calls these through the REST API: POST /rest/v1/rpc/NAME with
-- the arguments as a JSON object, e.g. {"group_name": "Family", "member_name": "Kitchen"}; the answer is
-- the function's value as JSON. Refusals come as the REST API's error body {"code", "details", "hint",
-- "message"}, with the HTTP status in the code: PT400 is 400, PT409 is 409, and so on (PostgREST answers
-- `raise sqlstate 'PTxyz'` with status xyz). docs/supabase/groups.md shows the calls.
--
-- Each runs as the owner of this file (security definer) with an empty search_path, so it names every
-- table and function with its schema, and acts for auth.uid() only: the caller's own membership.

-- pgcrypto's gen_random_bytes makes the invite codes (a Supabase project has it in `extensions` already).
create extension if not exists pgcrypto with schema extensions;

-- Each group's invite code: only its SHA-256 is kept, so reading this table does not give the code away.
-- One per group: asking for a new one (group_invite) replaces it, and the old one stops working.
create table if not exists public.group_invites (
    group_id   bigint primary key references public.groups (id) on delete cascade,
    code_hash  text not null unique,                 -- hex SHA-256 of the code without its dashes
    expires_at timestamptz not null,                 -- 7 days after it was made
    created_by uuid references auth.users (id) on delete set null,
    created_at timestamptz not null default now()
);

-- The wrong invite codes each user tried: at most 10 an hour (join_group), kept an hour (the cleanup below).
create table if not exists public.invite_attempts (
    id           bigint generated always as identity primary key,
    user_id      uuid not null references auth.users (id) on delete cascade,
    attempted_at timestamptz not null default now()
);
create index if not exists invite_attempts_by_user on public.invite_attempts (user_id, attempted_at);

-- Only the functions below touch these two: no API role reads or writes them.
alter table public.group_invites enable row level security;
alter table public.invite_attempts enable row level security;
revoke all on public.group_invites, public.invite_attempts from anon, authenticated;

-- A member's name as the other stations show it: trimmed, 1 to 60 characters, no control characters.
create or replace function public.snapstation_member_name(member_name text) returns text
language plpgsql immutable set search_path = '' as $$
declare
    cleaned text := pg_catalog.btrim(member_name);
begin
    if cleaned is null or pg_catalog.length(cleaned) not between 1 and 60 or cleaned ~ '[[:cntrl:]]' then
        raise sqlstate 'PT400' using
            message = 'member_name must be 1 to 60 characters, without control characters',
            hint = 'It is the name the other stations show for this one, e.g. "Kitchen".';
    end if;
    return cleaned;
end
$$;

-- The hash an invite code is kept and looked up by. Codes are read as typed: case, spaces and dashes
-- do not matter.
create or replace function public.snapstation_invite_hash(code text) returns text
language sql immutable set search_path = '' as $$
    select pg_catalog.encode(pg_catalog.sha256(pg_catalog.convert_to(
        pg_catalog.upper(pg_catalog.regexp_replace(coalesce(code, ''), '[^A-Za-z0-9]', '', 'g')), 'UTF8')), 'hex')
$$;

-- A new invite code for a group, replacing its old one: 12 characters from 32 that are hard to mix up
-- (no 0, O, 1 or I), 60 random bits, shown as XXXX-XXXX-XXXX; valid for 7 days.
create or replace function public.snapstation_new_invite(the_group bigint) returns text
language plpgsql volatile security definer set search_path = '' as $$
declare
    alphabet constant text := 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
    random_bytes bytea := extensions.gen_random_bytes(12);
    code text := '';
begin
    for i in 0..11 loop
        -- 256 is a multiple of 32: every character is equally likely.
        code := code || pg_catalog.substr(alphabet, pg_catalog.get_byte(random_bytes, i) % 32 + 1, 1);
    end loop;
    insert into public.group_invites (group_id, code_hash, expires_at, created_by)
    values (the_group, public.snapstation_invite_hash(code), pg_catalog.now() + interval '7 days', auth.uid())
    on conflict (group_id) do update
    set code_hash = excluded.code_hash, expires_at = excluded.expires_at, created_by = excluded.created_by,
        created_at = pg_catalog.now();
    return pg_catalog.substr(code, 1, 4) || '-' || pg_catalog.substr(code, 5, 4) || '-'
        || pg_catalog.substr(code, 9, 4);
end
$$;

-- The caller, or PT401 when the request carries no user (the service-role key, a token without `sub`).
create or replace function public.snapstation_caller() returns uuid
language plpgsql stable set search_path = '' as $$
begin
    if auth.uid() is null then
        raise sqlstate 'PT401' using
            message = 'sign in first: only a signed-in user can be a member of a group',
            hint = 'Send the user''s access token as the Authorization bearer.';
    end if;
    return auth.uid();
end
$$;

-- The id of the caller's group of that name, or null when the caller is not one of its members (PT401
-- when the request carries no user).
create or replace function public.snapstation_callers_group(group_name text) returns bigint
language sql stable security definer set search_path = '' as $$
    select g.id
    from public.groups g join public.members m on m.group_id = g.id
    where g.name = snapstation_callers_group.group_name and m.user_id = public.snapstation_caller()
$$;

revoke all on function public.snapstation_member_name(text), public.snapstation_invite_hash(text),
    public.snapstation_new_invite(bigint), public.snapstation_caller(),
    public.snapstation_callers_group(text) from public, anon, authenticated;

-- create_group(group_name, member_name) -> the group's invite code, "XXXX-XXXX-XXXX"
-- Makes the group with the caller as its first member under member_name.
--   PT400  the group name is not valid (see groups.name), or member_name is not valid
--   PT409  a group of that name exists already: the same answer to anyone, a member of it or not, and it
--          says nothing else about the group
create or replace function public.create_group(group_name text, member_name text) returns text
language plpgsql volatile security definer set search_path = '' as $$
declare
    caller uuid := public.snapstation_caller();
    the_name text := public.snapstation_member_name(create_group.member_name);
    the_group bigint;
begin
    begin
        insert into public.groups (name) values (create_group.group_name)
        on conflict (name) do nothing
        returning id into the_group;
    exception when check_violation or not_null_violation then
        raise sqlstate 'PT400' using
            message = pg_catalog.format('%L is not a group name: 1 to 100 characters, ASCII letters, digits, '
                'spaces and _ ! - . * '' ( ) & $ @ = ; : + , ? only', create_group.group_name),
            hint = 'Stations name folders after it: no slash, no accented letters.';
    end;
    if the_group is null then
        raise sqlstate 'PT409' using
            message = 'this group name is taken: choose another',
            hint = 'To join a group, ask one of its members for an invite code.';
    end if;
    insert into public.members (group_id, user_id, name) values (the_group, caller, the_name);
    return public.snapstation_new_invite(the_group);
end
$$;

-- join_group(invite_code, member_name) -> the group's name
-- Joins the group whose current code this is (case, spaces and dashes do not matter) under member_name.
-- Joining a group one is in already answers its name again and changes nothing.
--   PT400  member_name is not valid
--   PT403  no group has this code: mistyped, or replaced by a newer one (group_invite)
--   PT410  the code has expired (7 days)
--   PT409  the group has 12 members already
--   PT429  10 wrong codes in the last hour: try again later
-- A wrong or expired code is counted against the caller, so it must be kept when refused: the function
-- answers that refusal as a value (PostgREST's error body, status in response.status) instead of raising,
-- since PostgREST commits then (a raise would roll the count back). Called in plain SQL, check
-- current_setting('response.status', true) afterwards.
create or replace function public.join_group(invite_code text, member_name text) returns json
language plpgsql volatile security definer set search_path = '' as $$
declare
    caller uuid := public.snapstation_caller();
    the_name text := public.snapstation_member_name(join_group.member_name);
    wrong_codes integer;
    first_wrong timestamptz;
    invite public.group_invites;
    the_group public.groups;
    members_now integer;
begin
    -- One join at a time per user, so parallel guesses are all counted.
    perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('snapstation join ' || caller::text, 0));
    select count(*), min(a.attempted_at) into wrong_codes, first_wrong
    from public.invite_attempts a
    where a.user_id = caller and a.attempted_at > pg_catalog.now() - interval '1 hour';
    if wrong_codes >= 10 then
        raise sqlstate 'PT429' using
            message = pg_catalog.format('too many wrong invite codes: try again after %s UTC',
                pg_catalog.to_char((first_wrong + interval '1 hour') at time zone 'UTC', 'YYYY-MM-DD HH24:MI')),
            hint = 'At most 10 wrong invite codes an hour are tried.';
    end if;

    select i.* into invite from public.group_invites i
    where i.code_hash = public.snapstation_invite_hash(join_group.invite_code);
    if invite.group_id is null or invite.expires_at <= pg_catalog.now() then
        insert into public.invite_attempts (user_id) values (caller);
        if invite.group_id is null then
            perform pg_catalog.set_config('response.status', '403', true);
            return pg_catalog.json_build_object(
                'code', 'PT403',
                'details', pg_catalog.format('%s of 10 wrong invite codes in the last hour', wrong_codes + 1),
                'hint', 'Check the code, or ask a member of the group for a new one: a code stops working '
                        'when a member asks for a new one.',
                'message', 'this invite code is not valid');
        end if;
        perform pg_catalog.set_config('response.status', '410', true);
        return pg_catalog.json_build_object(
            'code', 'PT410',
            'details', pg_catalog.format('%s of 10 wrong invite codes in the last hour', wrong_codes + 1),
            'hint', 'Ask a member of the group for a new code: codes last 7 days.',
            'message', pg_catalog.format('this invite code expired at %s UTC',
                pg_catalog.to_char(invite.expires_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI')));
    end if;

    -- The group's row is locked until this commits, so two joins cannot both take the 12th place (the
    -- at_most_12_members trigger holds the cap for every other way in too).
    select g.* into the_group from public.groups g where g.id = invite.group_id for update;
    if exists (select from public.members m where m.group_id = the_group.id and m.user_id = caller) then
        return pg_catalog.to_json(the_group.name);
    end if;
    select count(*) into members_now from public.members m where m.group_id = the_group.id;
    if members_now >= 12 then
        raise sqlstate 'PT409' using
            message = pg_catalog.format('group %s already has 12 members', the_group.name),
            hint = 'A member has to leave first, or start another group.';
    end if;
    insert into public.members (group_id, user_id, name) values (the_group.id, caller, the_name);
    return pg_catalog.to_json(the_group.name);
end
$$;

-- group_invite(group_name) -> a new invite code for the group, "XXXX-XXXX-XXXX"
-- Any member may ask; the group's previous code stops working.
--   PT403  the caller is not a member of that group
create or replace function public.group_invite(group_name text) returns text
language plpgsql volatile security definer set search_path = '' as $$
declare
    the_group bigint := public.snapstation_callers_group(group_invite.group_name);
begin
    if the_group is null then
        raise sqlstate 'PT403' using
            message = pg_catalog.format('you are not a member of group %s', group_invite.group_name),
            hint = 'Only a member can invite: join with an invite code first.';
    end if;
    return public.snapstation_new_invite(the_group);
end
$$;

-- leave_group(group_name) -> the object paths of the caller's photo rows it deleted (a JSON array)
-- Deletes the caller's photo rows in the group and its membership; the group, with its invite code, goes
-- when its last member leaves (its name is free again). From then on the caller reads nothing of the
-- group, its folder included (so a station reads the folder before it leaves). Its files stay in the
-- bucket: the station deletes them through Storage (those paths, each one's -sticker.png if it had one,
-- and whatever else it uploaded under FOLDER/); it can, as each owner may read and delete its own objects.
--   PT404  the caller is not a member of that group
create or replace function public.leave_group(group_name text) returns setof text
language plpgsql volatile security definer set search_path = '' as $$
declare
    caller uuid := public.snapstation_caller();
    the_group bigint;
begin
    -- Locked like a join, so a join and the last member leaving do not cross.
    select g.id into the_group from public.groups g where g.name = leave_group.group_name for update;
    if the_group is null
       or not exists (select from public.members m where m.group_id = the_group and m.user_id = caller) then
        raise sqlstate 'PT404' using
            message = pg_catalog.format('you are not a member of group %s', leave_group.group_name);
    end if;
    return query
        with gone as (
            delete from public.group_photos p
            where p.group_name = leave_group.group_name and p.member_id = caller
            returning p.object_path
        )
        select gone.object_path from gone order by 1;
    delete from public.members m where m.group_id = the_group and m.user_id = caller;
    if not exists (select from public.members m where m.group_id = the_group) then
        delete from public.groups g where g.id = the_group;
    end if;
end
$$;

-- group_members(group_name) -> the group's members in the order they joined, a JSON array of
-- {"member_name", "joined_at", "last_shared_at", "is_caller"}; is_caller marks the caller's own row.
-- last_shared_at is when that member last shared a photo into the group, null until it has; it stays
-- after the photo's row is deleted (48 hours on), so the owner can see which station has gone quiet.
-- Any member may ask.
--   PT404  the caller is not a member of that group
create or replace function public.group_members(group_name text)
returns table (member_name text, joined_at timestamptz, last_shared_at timestamptz, is_caller boolean)
language plpgsql stable security definer set search_path = '' as $$
declare
    caller uuid := public.snapstation_caller();
    the_group bigint := public.snapstation_callers_group(group_members.group_name);
begin
    if the_group is null then
        raise sqlstate 'PT404' using
            message = pg_catalog.format('you are not a member of group %s', group_members.group_name);
    end if;
    -- The columns are named with their table: the output columns are variables of the same names.
    return query
        select m.name, m.created_at, m.last_shared_at, m.user_id = caller
        from public.members m
        where m.group_id = the_group
        order by m.created_at, m.id;
end
$$;

-- Signed-in users only (a new project lets `anon` and everyone execute new functions by default).
revoke all on function public.create_group(text, text), public.join_group(text, text),
    public.group_invite(text), public.leave_group(text), public.group_members(text) from public, anon;
grant execute on function public.create_group(text, text), public.join_group(text, text),
    public.group_invite(text), public.leave_group(text), public.group_members(text) to authenticated;

-- ---------------------------------------------------------------------------------------------------------
-- The 48-hour cleanup

-- Deletes the rows whose photos have expired and returns how many; also forgets wrong invite codes tried
-- more than an hour ago (join_group counts only the last hour). Files are not touched here: deleting
-- storage.objects rows in SQL would leave the files behind, so each station deletes its own through the
-- Storage API. Objects of a station that never came back can be found with
--     select name from storage.objects
--     where bucket_id = 'snapstation' and created_at < now() - interval '48 hours';
-- and deleted from the dashboard.
create or replace function public.snapstation_expire_photos() returns integer
language sql set search_path = '' as $$
    delete from public.invite_attempts where attempted_at <= now() - interval '1 hour';
    with expired as (
        delete from public.group_photos where expires_at <= now() returning 1
    )
    select count(*)::integer from expired
$$;
revoke all on function public.snapstation_expire_photos() from public, anon, authenticated;

-- Every 15 minutes, with pg_cron, installed as Supabase's docs do it (guides/cron/install.mdx; the same
-- as Integrations -> Cron in the dashboard). Scheduling under the same name again replaces the job.
create extension if not exists pg_cron with schema pg_catalog;
grant usage on schema cron to postgres;
grant all privileges on all tables in schema cron to postgres;
select cron.schedule(
    'snapstation-expire-photos', '*/15 * * * *',
    $$ select public.snapstation_expire_photos() $$
);

-- ---------------------------------------------------------------------------------------------------------
-- Adding a station to a group as the admin, without an invite code (the user id is under
-- Authentication -> Users):
--
--   insert into public.groups (name) values ('Family') on conflict (name) do nothing;
--   insert into public.members (group_id, user_id, name)
--   select id, '00000000-0000-0000-0000-000000000000', 'Kitchen' from public.groups where name = 'Family';
