-- SnapStation's Supabase backend: run this whole file in your project's SQL editor. Running it again is
-- safe: it creates what is missing and replaces its own functions, triggers, policies and job.
--
-- The model
--   groups        a small private group, known to the stations by its name; at most 12 members.
--   members       one row per station in a group: the Supabase user the station signs in as (its key is
--                 that user's JWT) and the name the other stations show. A station may be in several groups.
--   group_photos  one row per shared photo. The file is in the private bucket "snapstation" at
--                 GROUP/DAY/PHOTO.jpg, uploaded first; the row says "this photo is shared".
--
-- Give each station its own Supabase user (Authentication -> Users) and that user's JWT as its key, with
-- the project's anon key as the `apikey`. Never give a station the service-role key: it bypasses every
-- rule below. Stations join groups only here, as the admin (see the example at the end): nothing in the
-- API lets a station add, change or delete a group, a member or a row.
--
-- Tests/Group/check_rules.py checks every rule below against a real PostgreSQL.

-- ---------------------------------------------------------------------------------------------------------
-- Groups and members

create table if not exists public.groups (
    id         bigint generated always as identity primary key,
    -- The name is the first folder of the group's photos in the bucket, so it holds only what Supabase
    -- Storage accepts in a name: ASCII letters and digits, spaces and _ ! - . * ' ( ) & $ @ = ; : + , ?
    -- (no slash, no accented letters).
    name       text not null unique
               constraint group_name_length check (length(name) between 1 and 100)
               constraint group_name_is_a_folder_name check (name ~ '^[A-Za-z0-9_!.*''() &$@=;:+,?-]+$'),
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()   -- also touched whenever a member joins
);

create table if not exists public.members (
    id         bigint generated always as identity primary key,
    group_id   bigint not null references public.groups (id) on delete cascade,
    user_id    uuid not null references auth.users (id) on delete cascade,   -- the station's user
    name       text not null constraint member_name_length check (length(name) between 1 and 60),
    created_at timestamptz not null default now(),
    constraint one_membership_per_group unique (group_id, user_id)
);

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
    day         date        not null,                -- the station's local day
    photo_id    text        not null,                -- the station's id for the photo
    object_path text        not null,                -- GROUP/DAY/PHOTO.jpg in the bucket, not URL-encoded
    byte_size   bigint,                              -- optional: the JPEG's size
    taken_at    timestamptz not null,
    expires_at  timestamptz not null,
    created_at  timestamptz not null default now(),
    -- A retried insert of the same photo is recognised: 409 naming one_row_per_photo, or 201 when the
    -- station asks the REST API to ignore that duplicate (?on_conflict=photo_id with
    -- Prefer: resolution=ignore-duplicates).
    constraint one_row_per_photo unique (photo_id),
    -- The daily rule is each member's: one photo per member per group per day. A second photo that day
    -- fails with 23505, which the REST API answers with HTTP 409 naming this constraint.
    constraint one_photo_per_member_per_day unique (group_name, member_id, day),
    constraint photo_id_length check (length(photo_id) between 1 and 200),
    constraint object_in_group_folder check (split_part(object_path, '/', 1) = group_name),
    constraint byte_size_up_to_20_mb check (byte_size > 0 and byte_size <= 20 * 1024 * 1024),
    constraint expires_within_48_hours check (expires_at > taken_at and expires_at <= taken_at + interval '48 hours')
);
create index if not exists group_photos_expiry on public.group_photos (expires_at);

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

-- A member shares only as itself, only into its own groups, nothing that outlives 48 hours from now (an
-- hour of slack for a station whose clock runs fast), and only for the day the photo was taken: local days
-- run from UTC-12 to UTC+14, so that day is within one day of the UTC date. (A policy rather than a check:
-- it binds the stations, not the admin.)
drop policy if exists "members share into their groups" on public.group_photos;
create policy "members share into their groups" on public.group_photos
    for insert to authenticated
    with check (
        member_id = (select auth.uid())
        and group_name in (select public.snapstation_my_groups())
        and expires_at <= now() + interval '49 hours'
        and day between (taken_at at time zone 'UTC')::date - 1 and (taken_at at time zone 'UTC')::date + 1
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
-- these policies are the bucket's rules. An object's first folder is its group's name.

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
        and (storage.foldername(name))[1] in (select public.snapstation_my_groups())
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
        and (storage.foldername(name))[1] in (select public.snapstation_my_groups())
    );

-- Read every object of one's groups (the slideshow downloads the other members' photos).
drop policy if exists "snapstation: members read their groups" on storage.objects;
create policy "snapstation: members read their groups" on storage.objects
    for select to authenticated
    using (
        bucket_id = 'snapstation'
        and (storage.foldername(name))[1] in (select public.snapstation_my_groups())
    );

-- Delete only one's own objects: each station deletes its photos 48 hours after taking them, through the
-- Storage API (which also removes the file). A delete of anyone else's object deletes nothing.
drop policy if exists "snapstation: members delete their own uploads" on storage.objects;
create policy "snapstation: members delete their own uploads" on storage.objects
    for delete to authenticated
    using (bucket_id = 'snapstation' and owner_id = (select auth.uid()::text));

-- ---------------------------------------------------------------------------------------------------------
-- The 48-hour cleanup

-- Deletes the rows whose photos have expired and returns how many. Files are not touched here: deleting
-- storage.objects rows in SQL would leave the files behind, so each station deletes its own through the
-- Storage API. Objects of a station that never came back can be found with
--     select name from storage.objects
--     where bucket_id = 'snapstation' and created_at < now() - interval '48 hours';
-- and deleted from the dashboard.
create or replace function public.snapstation_expire_photos() returns integer
language sql set search_path = '' as $$
    with expired as (
        delete from public.group_photos where expires_at <= now() returning 1
    )
    select count(*)::integer from expired
$$;
revoke all on function public.snapstation_expire_photos() from public, anon, authenticated;

-- Every 15 minutes, with pg_cron (Database -> Extensions). Scheduling under the same name again replaces
-- the job.
create extension if not exists pg_cron;
select cron.schedule(
    'snapstation-expire-photos', '*/15 * * * *',
    $$ select public.snapstation_expire_photos() $$
);

-- ---------------------------------------------------------------------------------------------------------
-- Adding a station to a group (the user id is under Authentication -> Users):
--
--   insert into public.groups (name) values ('Family') on conflict (name) do nothing;
--   insert into public.members (group_id, user_id, name)
--   select id, '00000000-0000-0000-0000-000000000000', 'Kitchen' from public.groups where name = 'Family';
