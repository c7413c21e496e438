-- SnapStation's Supabase backend: run this once in your project's SQL editor.
--
-- It creates the bucket and the table the station writes to, the server's half of "one photo per group
-- per day" (a unique constraint: a second insert for the same group and day fails with 409, and the
-- station shows its lock screen), row-level security, and the 48-hour cleanup.
--
-- The station authenticates with the key in group.key_source. Give it a key for a dedicated Supabase
-- user (role "authenticated") rather than the service-role key, so the policies below apply to it.

-- Storage: a private bucket for the photos.
insert into storage.buckets (id, name, public)
values ('snapstation', 'snapstation', false)
on conflict (id) do nothing;

create table if not exists public.group_photos (
    id          bigint generated always as identity primary key,
    group_name  text        not null check (length(group_name) between 1 and 100),
    day         date        not null,                -- the station's local day
    photo_id    text        not null unique,         -- the station's id: a retried insert is recognised
    object_path text        not null,                -- GROUP/DAY/ID.jpg in the snapstation bucket
    station     text        not null default '',
    taken_at    timestamptz not null,
    expires_at  timestamptz not null,
    created_at  timestamptz not null default now(),
    constraint one_photo_per_day unique (group_name, day),
    constraint expires_within_48_hours check (expires_at <= taken_at + interval '48 hours')
);

alter table public.group_photos enable row level security;

-- Stations (and members) may add a photo, and read the photos that have not expired. Nobody may change
-- or delete a row through the API: the cleanup below does that.
drop policy if exists "add photos" on public.group_photos;
create policy "add photos" on public.group_photos
    for insert to authenticated
    with check (expires_at <= now() + interval '49 hours');

drop policy if exists "read unexpired photos" on public.group_photos;
create policy "read unexpired photos" on public.group_photos
    for select to authenticated
    using (expires_at > now());

-- The station uploads with x-upsert (a retried upload rewrites the same object), which needs insert,
-- select and update on the bucket's objects.
drop policy if exists "stations upload photos" on storage.objects;
create policy "stations upload photos" on storage.objects
    for insert to authenticated with check (bucket_id = 'snapstation');
drop policy if exists "stations rewrite photos" on storage.objects;
create policy "stations rewrite photos" on storage.objects
    for update to authenticated using (bucket_id = 'snapstation');
drop policy if exists "read photos" on storage.objects;
create policy "read photos" on storage.objects
    for select to authenticated using (bucket_id = 'snapstation');

-- The 48-hour cleanup, every 15 minutes (pg_cron: enable it under Database → Extensions).
-- Rows go here. Storage objects must be removed through the Storage API, which also deletes the file:
-- the query below lists them for a scheduled Edge Function (or `supabase storage rm`) to delete.
create extension if not exists pg_cron;
select cron.schedule(
    'snapstation-expire-photos', '*/15 * * * *',
    $$ delete from public.group_photos where expires_at < now() $$
);

-- Objects whose photos have expired (for the function that deletes them through the Storage API):
--   select name from storage.objects
--   where bucket_id = 'snapstation' and created_at < now() - interval '48 hours';
