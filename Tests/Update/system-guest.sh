#!/bin/bash
# Runs inside the A/B disk's Debian at every boot (snapstation-updatetest.service, Tests/Update/system.sh):
# one step of the update scenarios per boot, the next step kept on the data partition. Results go to the
# serial console as "UPDATE: PASS|FAIL|INFO …" lines; "UPDATE: KILL" asks the host to kill qemu (scenario
# 3), "UPDATE: DONE" ends the run. Bundles are on the second disk (/dev/vdb, mounted at /test).
#
#   boot 1  A 1.0.0   READY; slot confirmed; a group photo with its upload queued (5); an unsigned and a
#                     tampered bundle refused, slot B untouched (4); v2 installing ... KILL (3)
#   boot 2  A 1.0.0   after the kill: A runs, B bad (3); the photo and queue (5); a bundle whose station
#                     never becomes ready installed; the station restarts into it (2)
#   boot 3  B broken  the station never READY; the guard reboots (2)
#   boot 4  A 1.0.0   back on A by itself, B bad, "did not start" (2); the photo and queue (5); a change,
#                     then the backup made before the install restored from the page (8); v2
#                     installed; the station restarts into it (1)
#   boot 5  B 2.0.0   READY, marked good after confirm_seconds (1); the photo and queue (5); a reboot, and
#                     "CUT" asks the host to kill qemu once GRUB has started B again (6)
#   boot 6  A 1.0.0   GRUB passed over B (its try spent, never confirmed): the station goes back (6)
#   boot 7  B 2.0.0   READY, confirmed at once, A good as the fallback (6); the photo and queue (5); DONE;
#                     both tries spent in grubenv, a reboot, and "CUT" again: GRUB's last resort (7)
set -u
state=/data/updatetest
mkdir -p "$state"
step=$(cat "$state/step" 2>/dev/null || echo fresh)
say() { echo "UPDATE: $*" > /dev/console; echo "UPDATE: $*"; }
pass() { say "PASS $*"; }
fail() { say "FAIL $*"; }
info() { say "INFO $*"; }
next() { echo "$1" > "$state/step"; sync; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
slot=$(sed -n 's/.*rauc\.slot=\([A-Z]\).*/\1/p' /proc/cmdline)
version=$(sed -n 's/^IMAGE_VERSION=//p' /usr/lib/os-release)
journal() { journalctl -b -u snapstation --no-pager -o cat; }
show() { systemctl show -p "$1" --value snapstation.service; }

for _ in $(seq 100); do [ -b /dev/vdb ] && break; sleep 0.1; done
mkdir -p /test && mount -o ro /dev/vdb /test 2>/dev/null
# The station's own update commands (Sources/snapstation/Update.swift), or RAUC directly where the
# binary predates them; the test then stands in for the station's mark-good and restart, and says so.
if snapstation --help 2>/dev/null | grep -q "^  update "; then station_updates=1; else station_updates=0; fi
status_json() { snapstation update status --json 2>&1 | tr -d '\n'; }
# RAUC's view: "<bootname> <boot status> <state>" for each slot, and the primary.
slots() {
    rauc status --detailed --output-format=shell 2>/dev/null | awk -F= '
        { gsub(/\x27/, "", $2) }
        /^RAUC_SLOT_BOOTNAME_/ { n = $1; sub(/.*_/, "", n); name[n] = $2 }
        /^RAUC_SLOT_BOOT_STATUS_/ { n = $1; sub(/.*_/, "", n); boot[n] = $2 }
        /^RAUC_SLOT_STATE_/ { n = $1; sub(/.*_/, "", n); st[n] = $2 }
        END { for (n in name) printf "%s=%s/%s ", name[n], boot[n], st[n] }'
    # The primary slot (GRUB's ORDER, first OK and untried): "Activated:" in RAUC's own words.
    printf 'primary=%s' "$(rauc status 2>/dev/null | sed -n 's/^ *Activated: *\([^ ]*\).*/\1/p')"
}
boot_status() { slots | tr ' ' '\n' | sed -n "s/^$1=\([^/]*\)\/.*/\1/p"; }
other_slot() { [ "$slot" = A ] && echo B || echo A; }
other_device() { [ "$slot" = A ] && echo /dev/disk/by-partlabel/rootfs-b || echo /dev/disk/by-partlabel/rootfs-a; }

# wait_ready SECONDS: until snapstation.service is active (READY=1: its first screen is drawn).
wait_ready() {
    for _ in $(seq "$1"); do [ "$(systemctl is-active snapstation)" = active ] && return 0; sleep 1; done
    return 1
}
ready_at() { systemctl show -p ActiveEnterTimestamp --timestamp=unix --value snapstation.service | tr -d @; }
booted_at() { awk '{ print $1 }' /proc/uptime; }

# install BUNDLE: as an owner over SSH would; output in $state/install.log, time in $took.
install() {
    local started status
    started=$(now)
    if ((station_updates)); then
        snapstation update install "$1" > "$state/install.log" 2>&1
    else
        rauc install "$1" > "$state/install.log" 2>&1
    fi
    status=$?
    took=$(secs "$started" "$(now)")
    return $status
}
# The station restarts into the installed slot at an idle moment; with a binary before its update
# commands the test creates the file it would, which snapstation-reboot.path watches.
restart_into_update() {
    if ((station_updates)); then
        info "waiting for the station to restart into slot $(other_slot) at its next idle moment"
    else
        info "the binary has no 'update' command: the test creates /run/snapstation/reboot as the station would"
        touch /run/snapstation/reboot
    fi
}
# install_for STEP BUNDLE: the next boot's step is written first: the station may restart into the new
# slot as soon as the install is done, before this script says anything more. The next boot reports it.
install_for() {
    next "$1"
    if install "$2"; then
        echo "$took" > "$state/install-took"
        now > "$state/reboot-asked"
        sync
        info "$2 installed in $took s: $(tail -n 1 "$state/install.log")"
        restart_into_update
    else
        next failed-install
        fail "install of $2: $(tail -n 3 "$state/install.log" | tr '\n' ' ')"
    fi
}
installed() {  # SCENARIO WHAT
    pass "[$1] $2 installed into slot B in $(cat "$state/install-took") s: $(tail -n 1 "$state/install.log")"
}

# confirm: the station marks the booted slot good after READY and confirm_seconds; the test waits for it.
confirm() {
    local started=$1 limit=$2
    if ((station_updates)); then
        for _ in $(seq "$limit"); do
            case $(status_json) in *'"confirmed":true'* | *'"confirmed" : true'*) break ;; esac
            sleep 1
        done
    else
        info "the binary has no 'update' command: the test marks slot $slot good in its place"
        rauc status mark-good > /dev/null 2>&1
    fi
    confirmed_after=$(secs "$started" "$(now)")
    [ "$(boot_status "$slot")" = good ]
}

# MARK: scenario 5's state: a group photo whose upload waits (group.folder is a USB stick that is out)
sql() { sqlite3 -readonly /var/lib/snapstation/snapstation.sqlite "$1" 2>&1; }
record_state() {
    sql "SELECT id || ' ' || photo_path FROM photos ORDER BY taken_at LIMIT 1" > "$state/photo"
    sql "SELECT photo_id || ' ' || state FROM upload_jobs ORDER BY id LIMIT 1" > "$state/upload"
    read -r _ path < "$state/photo"
    sha256sum "$path" 2>/dev/null | cut -c1-16 > "$state/photo.sha"
}
# press: a press on the gpio-sim shutter, as Tests/System/systemtest.sh does.
press() {
    local sim line
    sim=$(cat /sys/kernel/config/gpio-sim/snap/bank0/chip_name)
    line=/sys/devices/platform/$(cat /sys/kernel/config/gpio-sim/snap/dev_name)/$sim/sim_gpio17/pull
    echo pull-down > "$line"; sleep 0.2; echo pull-up > "$line"
}
# hold: the 5-second hold on the shutter that answers the station's question (a restore, a reset).
hold() {
    local sim line
    sim=$(cat /sys/kernel/config/gpio-sim/snap/bank0/chip_name)
    line=/sys/devices/platform/$(cat /sys/kernel/config/gpio-sim/snap/dev_name)/$sim/sim_gpio17/pull
    echo pull-down > "$line"; sleep 5.5; echo pull-up > "$line"
}
# page POST_PATH FIELD=VALUE...: a form sent to the station's page as a paired phone would (a session put
# in the store as pairing does: the token's SHA-256, a CSRF token); "STATUS LOCATION".
page() {
    local path=$1 token csrf
    shift
    token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
    csrf=csrf-$token
    runuser -u snapstation -- sqlite3 /var/lib/snapstation/snapstation.sqlite \
        "INSERT INTO web_sessions (token_hash, csrf, name, created, last_seen) VALUES ('$(printf %s "$token" | sha256sum | cut -c1-64)', '$csrf', 'update test', $(date +%s), $(date +%s))"
    local fields=(--data-urlencode "csrf=$csrf")
    for field in "$@"; do fields+=(--data-urlencode "$field"); done
    curl -s -o /dev/null -w '%{http_code} %{redirect_url}' -H "Cookie: snapstation_session=$token" \
        "${fields[@]}" "http://127.0.0.1:8080$path"
}
check_state() {  # WHEN
    local id path job sha
    read -r id path < "$state/photo"
    job=$(sql "SELECT photo_id || ' ' || state FROM upload_jobs WHERE photo_id = '$id'")
    sha=$(sha256sum "$path" 2>/dev/null | cut -c1-16)
    if [ -n "$id" ] && [ "$sha" = "$(cat "$state/photo.sha")" ] && [ -n "$job" ] && [ "${job#* }" != "done" ] &&
        [ "${job#* }" != sent ]; then
        pass "[5] $1: the group photo $id is there (its row, and $path unchanged: $sha) and its upload still queued ($job)"
    else
        fail "[5] $1: photo '$id' $path sha '$sha' (was $(cat "$state/photo.sha")), upload job '$job'"
    fi
}

downtime() {  # the station's stop in the last boot (the last frame) to READY in this one (the first)
    local stopped ready
    stopped=$(cat "$state/station-stopped" 2>/dev/null)
    ready=$(ready_at)
    [ -n "$stopped" ] && [ -n "$ready" ] && secs "$stopped" "$ready"
}

booted_header() {
    info "boot: slot $slot, image $version, $(slots), step $step, booted to here in $(booted_at) s"
    [ "$step" = fresh ] && info "rauc status: $(rauc status 2>&1 | tr -s ' \n' ' ')"
}

case $step in
fresh)
    booted_header
    started=$(now)
    if [ "$slot" = A ] && [ "$version" = 1.0.0 ] && wait_ready 240; then
        pass "boot 1: the station READY from slot A (1.0.0) on a fresh disk, $(booted_at) s after the kernel started"
    else
        fail "boot 1: slot $slot, image $version, station $(systemctl is-active snapstation): $(journal | tail -n 5 | tr '\n' '|')"
    fi
    # The data partition took the slot's config and state; the binds are in place.
    if findmnt -n -o SOURCE /var/lib/snapstation | grep -q '\[/snapstation/state\]' &&
        findmnt -n -o SOURCE /etc/snapstation | grep -q '\[/snapstation/config\]' &&
        [ -f /etc/snapstation/snapstation.toml ]; then
        pass "boot 1: /var/lib/snapstation and /etc/snapstation are the data partition's (seeded on this first boot)"
    else
        fail "boot 1: binds: $(findmnt -n /var/lib/snapstation) / $(findmnt -n /etc/snapstation)"
    fi
    # The station's own machine-id (the image has none), made on this first boot and kept for both slots.
    id=$(cat /etc/machine-id)
    if echo "$id" | grep -qx '[0-9a-f]\{32\}' && [ "$id" = "$(cat /data/snapstation/machine-id 2>/dev/null)" ]; then
        echo "$id" > "$state/machine-id"
        pass "boot 1: a machine-id of the station's own ($id), made on this first boot, kept on the data partition"
    else
        fail "boot 1: machine-id '$id', the data partition's '$(cat /data/snapstation/machine-id 2>&1)'"
    fi
    # RAUC over D-Bus: the station's user may, another user may not; and from inside the station's sandbox.
    if runuser -u snapstation -- rauc status > /dev/null 2>&1; then
        pass "D-Bus policy: user snapstation may ask RAUC (rauc status)"
    else
        fail "D-Bus policy: user snapstation: $(runuser -u snapstation -- rauc status 2>&1 | tail -n 1)"
    fi
    if out=$(runuser -u nobody -- rauc status 2>&1); then
        fail "D-Bus policy: user nobody may ask RAUC too"
    else
        pass "D-Bus policy: user nobody may not: $(echo "$out" | tail -n 1)"
    fi
    # The hardened unit's sandbox itself (snapstation.service with another ExecStart): the station runs
    # /usr/bin/rauc there.
    sed -e '/^ExecStart=/c ExecStart=/usr/bin/rauc status --detailed' -e '/^Type=/c Type=oneshot' \
        -e '/^\(NotifyAccess\|WatchdogSec\|Restart\|RestartSec\)=/d' -e '/^\[Install\]/,$d' \
        /usr/lib/systemd/system/snapstation.service > /run/systemd/system/snapstation-rauc-probe.service
    systemctl daemon-reload
    if systemctl start snapstation-rauc-probe.service 2>/dev/null &&
        journalctl -u snapstation-rauc-probe -o cat | grep -q "Booted from"; then
        pass "snapstation.service's sandbox (User=snapstation, its hardening) runs rauc status over D-Bus"
    else
        fail "rauc in snapstation.service's sandbox: $(journalctl -u snapstation-rauc-probe -o cat | tail -n 4 | tr '\n' '|')"
    fi
    if confirm "$started" 240; then
        pass "boot 1: slot A marked good $confirmed_after s after the station started (ORDER's first, TRY cleared): $(slots)"
    else
        fail "boot 1: slot A not marked good: $(slots); $(status_json)"
    fi

    # [5] the photo: a press on the gpio-sim shutter.
    press
    # The photo's job is queued once it is processed and shown (slow under TCG on a busy machine).
    for _ in $(seq 300); do
        [ -n "$(sql "SELECT photo_id FROM upload_jobs LIMIT 1")" ] && break
        sleep 1
    done
    record_state
    if [ -s "$state/photo.sha" ] && [ -s "$state/upload" ]; then
        pass "[5] before the update: a group photo ($(cat "$state/photo")) and its queued upload ($(cat "$state/upload"))"
    else
        fail "[5] before the update: no photo or upload: $(cat "$state/photo" "$state/upload" 2>/dev/null | tr '\n' ' ') $(journal | tail -n 15 | tr '\n' '|')"
    fi

    # [4] refused bundles leave the other slot as it was.
    before=$(sha256sum "$(other_device)" | cut -c1-16)
    status_before=$(slots)
    for bundle in unsigned tampered; do
        if install "/test/$bundle.raucb"; then
            fail "[4] the $bundle bundle was installed: $(tail -n 2 "$state/install.log" | tr '\n' ' ')"
        else
            reason=$(grep -v -E '^ *[0-9]+%|^Installing .* failed$|^idle$|^$' "$state/install.log" | tr '\n' ' ')
            # The station says RAUC's reason, not only "Installing `X` failed".
            why=$(echo "$reason" | sed -e 's/.*not installed: //' -e 's/Installing `[^`]*` failed//' | tr -d ' ')
            if [ -n "$why" ]; then
                pass "[4] the $bundle bundle refused in $took s: $reason"
            else
                fail "[4] the $bundle bundle refused in $took s, but without RAUC's reason: $reason"
            fi
        fi
    done
    after=$(sha256sum "$(other_device)" | cut -c1-16)
    if [ "$before" = "$after" ] && [ "$status_before" = "$(slots)" ]; then
        pass "[4] slot B untouched by the refused bundles ($after) and RAUC's view unchanged: $(slots)"
    else
        fail "[4] slot B $before -> $after; RAUC's view '$status_before' -> '$(slots)'"
    fi

    # [3] a power cut in the middle of an install: the host kills qemu at KILL.
    next killed
    info "[3] installing v2 into slot B; the host kills qemu in the middle"
    if ((station_updates)); then
        snapstation update install /test/v2.raucb > "$state/install.log" 2>&1 &
    else
        rauc install /test/v2.raucb > "$state/install.log" 2>&1 &
    fi
    # Killed while RAUC writes the slot: two seconds after it set B_OK=0 in grubenv, which it does just
    # before it writes and undoes once the slot is complete.
    for _ in $(seq 600); do
        grub-editenv /boot/grub/grubenv list | grep -qx "B_OK=0" && break
        sleep 0.2
    done
    sleep 2
    say "KILL while RAUC writes slot B: $(grep '%' "$state/install.log" | tail -n 1 | tr -s ' ')"
    sleep infinity
    ;;

killed)
    booted_header
    if [ "$slot" = A ] && wait_ready 240; then
        pass "[3] after qemu was killed mid-install: slot A booted and the station READY in $(booted_at) s; $(slots)"
    else
        fail "[3] after the kill: slot $slot, station $(systemctl is-active snapstation); $(slots)"
    fi
    if [ "$(boot_status B)" = bad ]; then
        pass "[3] the half-written slot B is marked bad (RAUC marked it before writing), so GRUB never starts it"
    else
        fail "[3] slot B after the kill: $(slots)"
    fi
    ((station_updates)) || confirm "$(now)" 1 > /dev/null
    check_state "after the killed install"

    # [2] a bundle whose station never becomes ready.
    install_for broken /test/broken.raucb
    ;;

broken)
    booted_header
    installed 2 "the bundle whose station never becomes ready"
    if [ "$slot" = B ] && [ "$version" = 2.1.0-broken ]; then
        pass "[2] GRUB started the new slot B ($version) once, $(secs "$(cat "$state/reboot-asked")" "$(now)") s after the restart was asked"
    else
        fail "[2] expected slot B 2.1.0-broken, booted slot $slot $version"
    fi
    next rolled-back
    info "[2] the station there never becomes ready; waiting for the guard to reboot ($(systemctl is-active snapstation-update-guard))"
    now > "$state/broken-started"
    # The guard's reboot ends this; if it does not come, say what the guard is doing.
    sleep 240
    fail "[2] no reboot by the guard 240 s after the broken slot came up: $(systemctl status snapstation-update-guard --no-pager 2>&1 | tail -n 8 | tr '\n' '|')"
    ;;

rolled-back)
    booted_header
    if [ "$slot" = A ] && [ "$version" = 1.0.0 ] && wait_ready 240; then
        pass "[2] back on slot A (1.0.0) by itself: READY $(secs "$(cat "$state/broken-started")" "$(ready_at)") s after the broken slot's system was up (guard: confirm_seconds + grace, the reboot, GRUB passing over B)"
    else
        fail "[2] after the broken slot: slot $slot $version, station $(systemctl is-active snapstation)"
    fi
    if [ "$(boot_status B)" = bad ] && [ "$(slots | sed 's/.*primary=//')" = rootfs.0 ]; then
        pass "[2] slot B is bad and A primary: $(slots)"
    else
        fail "[2] RAUC's view after the rollback: $(slots)"
    fi
    if ((station_updates)); then
        for _ in $(seq 60); do journal | grep -q "did not start" && break; sleep 1; done
        said=$(journal | grep -m 1 "did not start")
        if [ -n "$said" ]; then
            pass "[2] the station says so: '$said'; status: $(status_json | grep -o '"outcome":[^,}]*')"
        else
            fail "[2] the station does not say the update did not start; status: $(status_json)"
        fi
    else
        info "[2] the binary has no 'update' command: the station cannot say 'did not start' yet"
        confirm "$(now)" 1 > /dev/null
    fi
    check_state "after the rollback"

    # [8] the backup the station made by itself before the broken install, restored from the page on the
    # rolled-back slot: what was written since is gone, the photo before and its queued upload are there.
    # (The group's photo of the day is taken, so the change since is a line of the shopping list, written
    # into the store as the station's user.)
    kept=$(ls /var/lib/snapstation/backup/before-update-*.tar 2>/dev/null | sort | tail -n 1)
    if ((station_updates)) && [ -n "$kept" ]; then
        runuser -u snapstation -- sqlite3 /var/lib/snapstation/snapstation.sqlite \
            "INSERT INTO shopping_items (name, amount, unit) VALUES ('written since the backup', 1, 'piece')"
        since=$(sql "SELECT count(*) FROM shopping_items WHERE name = 'written since the backup'")
        asked=$(now)
        answer=$(page /backup/restore-kept "name=$(basename "$kept")")
        # A restore waits for the hold at the station, as the factory reset does.
        for _ in $(seq 60); do journal | grep -q "waiting for the long hold at the station" && break; sleep 1; done
        hold
        for _ in $(seq 300); do journal | grep -q "restored the backup made by" && break; sleep 1; done
        said=$(journal | grep -m 1 "restored the backup made by")
        if [ "$since" = 1 ] && [ -n "$said" ] && wait_ready 240 &&
            [ "$(sql "SELECT count(*) FROM shopping_items WHERE name = 'written since the backup'")" = 0 ]; then
            pass "[8] the backup made before the install ($(basename "$kept"), $(($(stat -c %s "$kept") / 1024)) KiB) restored from the page ($answer) on the rolled-back slot; the station restarted into it, READY $(secs "$asked" "$(ready_at)") s after it was asked; what was written since is gone: '$said'"
        else
            fail "[8] restore of $kept: written since '$since', page '$answer', said '$said', left: $(sql "SELECT group_concat(name) FROM shopping_items"); $(journal | tail -n 8 | tr '\n' '|')"
        fi
        check_state "after the backup made before the install was restored"
    else
        fail "[8] no backup made before the install: $(ls -l /var/lib/snapstation/backup 2>&1 | tr '\n' ' ')"
    fi

    # [1] v2, installed as the owner would, the restart at the station's next idle moment.
    install_for v2 /test/v2.raucb
    ;;

v2)
    booted_header
    installed 1 "v2"
    started=$(now)
    if [ "$slot" = B ] && [ "$version" = 2.0.0 ] && wait_ready 240; then
        pass "[1] v2 runs from slot B: READY $(secs "$(cat "$state/reboot-asked")" "$(ready_at)") s after the install ended; downtime $(downtime) s (the station's stop in slot A, its last frame, to READY in B, its first)"
    else
        fail "[1] after the v2 install: slot $slot $version, station $(systemctl is-active snapstation)"
    fi
    if confirm "$started" 240; then
        marked=$(journal | grep -m 1 "marked good")
        pass "[1] slot B marked good $confirmed_after s after READY: $(slots)${marked:+; the station: "$marked"}"
    else
        fail "[1] slot B not marked good: $(slots); $(status_json)"
    fi
    if [ "$(cat /etc/machine-id)" = "$(cat "$state/machine-id")" ]; then
        pass "[1] slot B runs as the same machine as slot A did (machine-id $(cat /etc/machine-id))"
    else
        fail "[1] slot B's machine-id $(cat /etc/machine-id), slot A's was $(cat "$state/machine-id")"
    fi
    ((station_updates)) && info "[1] status: $(status_json)"
    check_state "after the update"
    if ((station_updates)); then
        # [6] the power goes as B starts again, after GRUB spent its try and before the station confirms.
        next cut
        say "CUT at the next boot's GRUB: [6] a power cut as slot B starts"
        systemctl reboot
        sleep infinity
    fi
    next finished
    say "DONE"
    systemctl poweroff
    ;;

cut)
    # The station may restart into B within seconds of READY: the next step first, and what it says
    # kept at once for that step to read.
    next returned
    booted_header
    if [ "$slot" = A ] && wait_ready 240; then
        pass "[6] after a power cut as slot B started: GRUB passed over B, slot A (1.0.0) READY in $(booted_at) s"
    else
        fail "[6] after the cut: slot $slot $version, station $(systemctl is-active snapstation); $(slots)"
    fi
    for _ in $(seq 300); do
        said=$(journal | grep -m 1 "did not come up at its last start")
        [ -n "$said" ] && break
        sleep 0.2
    done
    echo "$said" > "$state/return-said"
    sync
    if [ -n "$said" ]; then
        pass "[6] the station goes back: '$said'"
    else
        fail "[6] the station does not go back to slot B: $(slots); $(status_json)"
    fi
    now > "$state/reboot-asked"
    info "[6] waiting for the station to restart into slot B at its next idle moment"
    ;;

returned)
    booted_header
    started=$(now)
    if [ "$slot" = B ] && [ "$version" = 2.0.0 ] && [ -s "$state/return-said" ] && wait_ready 240; then
        pass "[6] back on slot B (2.0.0): READY $(secs "$(cat "$state/reboot-asked")" "$(ready_at)") s after slot A's station said it goes back"
    else
        fail "[6] expected slot B 2.0.0 again: slot $slot $version, said '$(cat "$state/return-said" 2>/dev/null)'"
    fi
    # Marked good at once (it was confirmed with 2.0.0 before): the station never waits out
    # confirm_seconds here, which it says when it does ("is marked good after …").
    for _ in $(seq 120); do [ "$(boot_status B)" = good ] && break; sleep 0.5; done
    marked=$(secs "$(ready_at)" "$(now)")
    waited=$(journal | grep -m 1 "is marked good after")
    if [ "$(boot_status B)" = good ] && [ "$(boot_status A)" = good ] && [ -z "$waited" ] &&
        journal | grep -q "slot B (2.0.0) marked good"; then
        pass "[6] B marked good again without waiting out confirm_seconds (seen good $marked s after READY), A good as the fallback: $(slots); $(status_json | grep -o '"outcome":[^,}]*')"
    else
        fail "[6] after going back, $marked s: $(slots); waited: '$waited'; $(status_json)"
    fi
    check_state "after the power cut and the way back"
    next finished
    say "DONE"
    # [7] GRUB's last resort on this disk: every slot's try spent, ORDER's first is started again (the
    # host kills qemu at GRUB's choice and reads it).
    if grub-editenv /boot/grub/grubenv set A_TRY=1 B_TRY=1 && sync; then
        say "CUT at the next boot's GRUB: [7] its last resort, every slot tried ($(grub-editenv /boot/grub/grubenv list | tr '\n' ' '))"
        systemctl reboot
        sleep infinity
    fi
    fail "[7] grubenv could not be written: $(grub-editenv /boot/grub/grubenv list 2>&1 | tr '\n' ' ')"
    systemctl poweroff
    ;;

*)
    info "step $step: nothing to do"
    ;;
esac
