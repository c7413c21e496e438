#!/bin/sh
# The hardware-in-the-loop scenarios: the real snapstation binary against real kernel drivers.
#
#   scenarios.sh vm    in the qemu VM: vkms (display), gpio-sim (buttons, LED), vimc (camera, libcamera),
#                      then the camera scenarios again on vivid (a V4L2 webcam, camera.backend = "v4l2")
#   scenarios.sh pi    on a Raspberry Pi with the jig of board/hil-jig.md
#
# Each scenario prints "HIL: PASS name", "HIL: FAIL name: why" or "HIL: SKIP name: why"; figures are
# "HIL: FIGURE name value". Only the device layer (press, LED, display signature) differs per target.
# POSIX sh: the VM has busybox only.
target=${1:-vm}
bin=${SNAPSTATION:-/usr/bin/snapstation}
work=${HIL_WORK:-/tmp/hil}
board=$(dirname "$0")/board.toml
[ -f "$board" ] || board=$(dirname "$0")/../../board/x86-vm/snapstation.toml
mkdir -p "$work"
# The camera under test: libcamera on vimc first, then the v4l2 backend on vivid (TAG names those runs).
CAMERA_BACKEND=libcamera
CAMERA_DRIVER=vimc
TAG=""

pass() { echo "HIL: PASS $1"; }
fail() { echo "HIL: FAIL $1: $2"; }
skip() { echo "HIL: SKIP $1: $2"; }
figure() { echo "HIL: FIGURE $1 $2"; }

# One hang guard for every wait (seconds): a wait ends at the event it waits for, so the guard is only how
# long a stuck station takes to fail, never how long a slow one is given (the issue of 2026-12-01).
GUARD=${HIL_GUARD:-180}

# Waits for the $3-th line (1 unless given) holding $1 (a fixed string) in the file $2. On the guard, says
# what it waited for and leaves the file's tail for the scenario's failure.
wait_for() {
    limit=$(( GUARD * 10 ))
    while [ $limit -gt 0 ]; do
        [ "$(count "$1" "$2")" -ge "${3:-1}" ] && return 0
        sleep 0.1
        limit=$(( limit - 1 ))
    done
    echo "HIL: waited $GUARD s for '$1' (${3:-1}) in $2"
    return 1
}

# Waits for the display to scan out a picture other than the signature $1; prints the new one.
wait_for_change() {
    limit=$GUARD
    while [ $limit -gt 0 ]; do
        now=$(signature)
        [ "$now" != "$1" ] && { echo "$now"; return 0; }
        limit=$(( limit - 1 ))
        sleep 1
    done
    echo "$1"
    return 1
}

count() { grep -cF "$1" "$2" 2>/dev/null || true; }

# MARK: the device layer

# libcamera enumerates through udev; without udevd, an empty udev record per node is enough. Run again
# when the camera's nodes come back.
udev_records() {
    for node in /dev/video* /dev/media* /dev/v4l-subdev*; do
        [ -e "$node" ] || continue
        set -- $(stat -c '%t %T' "$node")
        : > /run/udev/data/c$((0x$1)):$((0x$2))
    done
}

setup_vm() {
    sim=/sys/kernel/config/gpio-sim/snap
    SIMCONF=$sim
    mkdir -p $sim/bank0
    echo 32 > $sim/bank0/num_lines
    echo snapstation-sim > $sim/bank0/label
    for line in 17 22 27; do
        mkdir $sim/bank0/line$line
        echo GPIO$line > $sim/bank0/line$line/name
    done
    echo 1 > $sim/live
    sim_paths
    CHIP=snapstation-sim
    # libcamera enumerates through udev; without udevd, empty udev records for the nodes are enough.
    mkdir -p /run/udev/data
    udev_records
    CRC=/sys/kernel/debug/dri/0/crtc-0/crc

    EXPECT="vkms snapstation-sim GPIO17 Virtual-1"
}

# Where the sim chip's lines are pulled and read; it moves when the chip is made again.
sim_paths() {
    chip=$(cat $SIMCONF/bank0/chip_name)
    SIM=/sys/devices/platform/$(cat $SIMCONF/dev_name)/$chip
}

# Milliseconds as sleep(1) takes them.
seconds() { echo "$(( $1 / 1000 )).$(printf %03d $(( $1 % 1000 )))"; }

# VM: the sim side's pull is what a button or a wire would do to the line.
vm_press() { echo pull-down > $SIM/sim_gpio17/pull; }
vm_release() { echo pull-up > $SIM/sim_gpio17/pull; }
vm_tap() { vm_press; sleep "$(seconds "$1")"; vm_release; }
vm_bounce() { for _ in 1 2 3 4 5; do vm_press; vm_release; done; vm_tap 150; }
vm_led() { cat $SIM/sim_gpio27/value; }

setup_pi() {
    CHIP=${HIL_CHIP:-gpiochip0}
    DRIVE=${HIL_DRIVE:-GPIO5}
    SENSE=${HIL_SENSE:-GPIO6}
    # The jig is there when driving its line low pulls the shutter line low (board/hil-jig.md).
    "$bin" jig --chip "$CHIP" --pulse "$DRIVE" --ms 400 &
    sleep 0.2
    level=$("$bin" jig --chip "$CHIP" --read GPIO17 2>/dev/null)
    wait
    if [ "$level" != 0 ]; then
        skip all "no jig on $CHIP: driving $DRIVE low does not pull GPIO17 low (see board/hil-jig.md)"
        exit 0
    fi
    CRC=$(ls -d /sys/kernel/debug/dri/*/crtc-0/crc 2>/dev/null | head -n 1)
    EXPECT="$CHIP GPIO17"
}

pi_tap() { "$bin" jig --chip "$CHIP" --pulse "$DRIVE" --ms "$1"; }
pi_bounce() { "$bin" jig --chip "$CHIP" --pulse "$DRIVE" --ms 2 --count 5 --gap 2; pi_tap 150; }
pi_led() { "$bin" jig --chip "$CHIP" --read "$SENSE"; }

tap() { ${target}_tap "$1"; }
bounce() { ${target}_bounce; }
led() { ${target}_led; }
# The CRC of the next frame scanned out (vkms, and drivers with CRC support): changes when the picture
# does. Empty where the driver has none; the display checks are then skipped.
signature() { [ -n "$CRC" ] && head -n 1 $CRC/data | tr -d '\0' | cut -d' ' -f2; }

config() {
    # $1: state folder, $2: GPIO chip, $3: display backend, set in the test VM's board config (the same
    # file as board/x86-vm/snapstation.toml: 1 s countdown and review, no quality gate); $4 and $5, when
    # given, the camera and GPIO backends.
    sed -e "s|^dir = .*|dir = \"$1\"|" -e "s|^chip = .*|chip = \"$2\"|" \
        -e "/^\[display\]/,/^\[/ s|^backend = .*|backend = \"$3\"|" \
        -e "/^\[camera\]/,/^\[/ s|^backend = .*|backend = \"${4:-$CAMERA_BACKEND}\"|" \
        -e "/^\[gpio\]/,/^\[/ s|^backend = .*|backend = \"${5:-gpiod}\"|" "$board"
}

# Starts the station with config $1, log $2; sets STATION to its pid.
start() {
    "$bin" run --config "$1" --no-stdin --log-level debug > "$2" 2>&1 &
    STATION=$!
}
stop() { kill "$STATION" 2>/dev/null; wait "$STATION" 2>/dev/null; }

# Waits until the station with log $1 listens: its ready screen, its camera's preview and its button
# lines requested ("buttons on"). A fixed second after the preview was a race on a busy TCG machine: a
# bounce sent before the lines were requested is no edge at all ("0 captures from one bouncing press",
# 2026-11-30).
listening() {
    for line in "screen: ready" "camera preview" "buttons on"; do wait_for "$line" "$1" || return 1; done
}

# MARK: the scenarios

scenario_selftest() {
    config $work/s1 $CHIP drm > $work/s1.toml
    if "$bin" selftest --config $work/s1.toml > $work/selftest.txt 2>&1; then
        missing=""
        for expected in $EXPECT; do
            grep -qF "$expected" $work/selftest.txt || missing="$missing '$expected'"
        done
        for device in camera buttons flash display; do
            grep -q "ok    $device" $work/selftest.txt || missing="$missing 'ok $device'"
        done
        if [ -z "$missing" ]; then pass selftest; else fail selftest "no$missing in the report"; fi
    else
        fail selftest "exit $?"
    fi
    sed 's/^/  | /' $work/selftest.txt
}

scenario_flow() {
    config $work/s2$TAG $CHIP drm > $work/s2$TAG.toml
    start $work/s2$TAG.toml $work/s2$TAG.log
    if ! listening $work/s2$TAG.log; then
        fail flow$TAG "the station did not reach the ready screen with a camera and its buttons"
        stop; sed 's/^/  | /' $work/s2$TAG.log | tail -30; return
    fi
    ready=$(signature)
    ( while kill -0 $STATION 2>/dev/null; do [ "$(led)" = 1 ] && echo on >> $work/led$TAG.log; sleep 0.02; done ) &
    watcher=$!
    tap 200
    problems=""
    wait_for "screen: countdown" $work/s2$TAG.log || problems="$problems; no countdown"
    countdown=$(wait_for_change "$ready")
    wait_for "captured" $work/s2$TAG.log || problems="$problems; no capture"
    wait_for "screen: group-lock" $work/s2$TAG.log || problems="$problems; no lock screen"
    locked=$(wait_for_change "$countdown")
    kill $watcher 2>/dev/null
    [ -s $work/led$TAG.log ] || problems="$problems; the LED line never went high"
    [ "$(led)" = 0 ] || problems="$problems; the LED is still on"
    if [ -n "$CRC" ]; then
        [ "$ready" != "$countdown" ] || problems="$problems; the countdown did not change the display ($ready)"
        [ "$countdown" != "$locked" ] || problems="$problems; the lock screen did not change the display"
    else
        skip flow-display$TAG "this display driver gives no CRC"
    fi
    photo=$(find $work/s2$TAG/outbox -name '*.jpg' | head -n 1)
    if [ -z "$photo" ] || [ "$(wc -c < "$photo")" -lt 5000 ]; then problems="$problems; no photo in the outbox"; fi
    # The stored photo has the still's size: the still stream's (from the camera's log line), at most 2048.
    size=$(grep "processed\|stored" $work/s2$TAG.log | grep -o 'size=[0-9]*x[0-9]*' | head -n 1)
    still=$(grep "camera still mode" $work/s2$TAG.log | grep -o 'preview=[0-9]*x[0-9]*' | head -n 1)
    [ -z "$still" ] && still=$(grep "camera preview" $work/s2$TAG.log | grep -o 'still=[0-9]*x[0-9]*' | head -n 1)
    [ -n "$size" ] && [ "${size#size=}" = "${still#*=}" ] || problems="$problems; photo ${size#size=}, still ${still#*=}"
    figure flow_photo$TAG "${size#size=}"
    lag=$(grep -o 'shutter_lag_ms=[0-9-]*' $work/s2$TAG.log | head -n 1)
    [ -n "$lag" ] && figure shutter_lag_ms$TAG "${lag#shutter_lag_ms=}"
    stop
    if [ -z "$problems" ]; then pass flow$TAG; else
        fail flow$TAG "${problems#; }"; sed 's/^/  | /' $work/s2$TAG.log | tail -40
    fi
}

scenario_bounce_and_hold() {
    config $work/s3 $CHIP drm > $work/s3.toml
    start $work/s3.toml $work/s3.log
    # The press comes once the station listens (`listening`).
    if ! listening $work/s3.log; then fail bounce "the station did not say it listens"; stop; return; fi
    # Contact bounce: five closures within a few milliseconds, then one clean press.
    bounce
    # The lock screen ends the day's photo: a second capture cannot follow it, so it is the event to count at.
    if ! wait_for "screen: group-lock" $work/s3.log; then
        fail bounce "no lock screen after one bouncing press: $(count "button: press" $work/s3.log) press(es) seen"
        sed 's/^/  | /' $work/s3.log | tail -30
    else
        captures=$(count "] captured" $work/s3.log)
        [ "$captures" = 0 ] && captures=$(count "captured 20" $work/s3.log)
        if [ "$captures" = 1 ]; then pass bounce; else
            fail bounce "$captures captures ($(count "button: press" $work/s3.log) presses seen) from one bouncing press"
        fi
    fi
    # A long press on the lock screen switches to meal mode.
    tap 1500
    if wait_for "button: hold" $work/s3.log; then pass hold; else fail hold "no hold seen"; fi
    stop
}

scenario_missing() {
    config $work/s4 snapstation-no-such-chip drm > $work/s4.toml
    start $work/s4.toml $work/s4.log
    # Runs on: it reaches its ready screen after saying the buttons are missing, and is still there.
    if wait_for "buttons missing" $work/s4.log && wait_for "screen: ready" $work/s4.log && kill -0 $STATION 2>/dev/null; then
        pass gpio-missing
    else
        fail gpio-missing "no 'buttons missing' or the station stopped"
    fi
    # With the station holding DRM master, a second opener gets a clear refusal.
    config $work/s4b $CHIP drm > $work/s4b.toml
    "$bin" selftest --config $work/s4b.toml > $work/busy.txt 2>&1
    if grep -q "another process holds DRM master" $work/busy.txt; then pass display-busy; else
        fail display-busy "$(grep display $work/busy.txt | tail -n 1)"
    fi
    stop
    if [ "$target" = vm ] && rmmod vimc 2>/dev/null; then
        config $work/s5 $CHIP drm > $work/s5.toml
        start $work/s5.toml $work/s5.log
        # Runs on: a press on the error screen is still read.
        if wait_for "screen: error-camera-missing" $work/s5.log && wait_for "buttons on" $work/s5.log &&
            tap 200 && wait_for "button: press" $work/s5.log && kill -0 $STATION 2>/dev/null; then
            pass camera-missing
        else
            fail camera-missing "no camera error screen, or the station stopped"
        fi
        stop
    else
        skip camera-missing "needs the camera driver unloaded (the VM's vimc)"
    fi
}

# The camera pulled out while the station runs, and plugged in again: the camera driver's platform device
# (vimc's, or vivid's) unbound and bound, which takes its media and video nodes away and brings them back as
# unplugging a USB camera does.
scenario_camera_unplug() {
    driver=/sys/bus/platform/drivers/$CAMERA_DRIVER
    device=$(ls $driver 2>/dev/null | grep "^$CAMERA_DRIVER" | head -n 1)
    if [ "$target" != vm ] || [ -z "$device" ]; then skip camera-unplug$TAG "needs the VM's $CAMERA_DRIVER"; return; fi
    config $work/s6$TAG $CHIP drm > $work/s6$TAG.toml
    start $work/s6$TAG.toml $work/s6$TAG.log
    if ! listening $work/s6$TAG.log; then
        fail camera-unplug$TAG "no camera preview"; stop; return
    fi
    readies=$(count "screen: ready" $work/s6$TAG.log)
    echo "$device" > $driver/unbind
    if wait_for "screen: error-camera-missing" $work/s6$TAG.log && kill -0 $STATION 2>/dev/null; then
        pass camera-unplugged$TAG
    else
        fail camera-unplugged$TAG "no camera error screen after the unplug, or the station stopped"
        sed 's/^/  | /' $work/s6$TAG.log | tail -20
    fi
    echo "$device" > $driver/bind
    udev_records
    # Back: it says so, and its ready screen returns (the press is taken from there).
    if wait_for "camera is back" $work/s6$TAG.log && wait_for "screen: ready" $work/s6$TAG.log $(( readies + 1 )); then
        tap 200
        if wait_for "screen: countdown" $work/s6$TAG.log; then pass camera-replugged$TAG; else
            fail camera-replugged$TAG "the camera came back, but a press started no countdown"
        fi
    else
        fail camera-replugged$TAG "the station did not take the camera back without a restart"
        sed 's/^/  | /' $work/s6$TAG.log | tail -20
    fi
    stop
}

# The GPIO chip taken away (a HAT unplugged) and given back, while the station runs.
scenario_gpio_unplug() {
    if [ "$target" != vm ]; then skip gpio-unplug "needs the VM's gpio-sim"; return; fi
    config $work/s7 $CHIP drm > $work/s7.toml
    start $work/s7.toml $work/s7.log
    if ! listening $work/s7.log; then fail gpio-unplug "no ready screen"; stop; return; fi
    echo 0 > $SIMCONF/live
    if wait_for "buttons missing" $work/s7.log && kill -0 $STATION 2>/dev/null; then pass gpio-unplugged; else
        fail gpio-unplugged "the lost chip was not reported, or the station stopped"
    fi
    echo 1 > $SIMCONF/live
    sim_paths
    vm_release
    # Back once its lines are requested again: the second "buttons on" (logged before "buttons are back").
    if wait_for "buttons are back" $work/s7.log && wait_for "buttons on" $work/s7.log 2; then
        tap 200
        if wait_for "screen: countdown" $work/s7.log; then pass gpio-replugged; else
            fail gpio-replugged "the buttons came back, but a press started no countdown"
        fi
    else
        fail gpio-replugged "the station did not take the chip back without a restart"
        sed 's/^/  | /' $work/s7.log | tail -20
    fi
    stop
}

# The display held by another process at start (DRM master), then let go: the station takes it.
scenario_display_later() {
    config $work/s8a $CHIP drm none none > $work/s8a.toml
    "$bin" run --config $work/s8a.toml --no-stdin > $work/s8a.log 2>&1 &
    holder=$!
    if ! wait_for "screen:" $work/s8a.log; then fail display-later "the holder did not start"; kill $holder; return; fi
    config $work/s8 $CHIP drm > $work/s8.toml
    start $work/s8.toml $work/s8.log
    if ! wait_for "display missing" $work/s8.log || ! wait_for "buttons on" $work/s8.log; then
        fail display-later "the station did not report the display held by another process"
        kill $holder; wait $holder 2>/dev/null; stop; return
    fi
    kill $holder; wait $holder 2>/dev/null
    if wait_for "display: opened" $work/s8.log; then
        first=$(signature)
        tap 200
        wait_for "screen: countdown" $work/s8.log
        if [ -z "$CRC" ] || wait_for_change "$first" > /dev/null; then pass display-later; else
            fail display-later "the display was opened, but the countdown did not change it"
        fi
    else
        fail display-later "the station did not take the display once it was free"
        sed 's/^/  | /' $work/s8.log | tail -20
    fi
    stop
}

# The live preview reaches the display: vivid stamps each frame with its time, so two frames of the ready
# screen a second apart differ (vimc's still picture would not show this). Figures: the mode streamed, and
# the time from opening the device to its first frame.
scenario_preview() {
    config $work/s9$TAG $CHIP drm > $work/s9$TAG.toml
    start $work/s9$TAG.toml $work/s9$TAG.log
    if ! wait_for "first frame" $work/s9$TAG.log || ! wait_for "screen: ready" $work/s9$TAG.log; then
        fail preview$TAG "the station did not reach the ready screen with a streaming camera"
        stop; sed 's/^/  | /' $work/s9$TAG.log | tail -30; return
    fi
    first=$(grep "first frame" $work/s9$TAG.log | grep -o 'after_ms=[0-9]*' | head -n 1)
    figure first_frame_ms$TAG "${first#after_ms=}"
    mode=$(grep "camera preview" $work/s9$TAG.log | grep -o 'preview=[0-9]*x[0-9]* [A-Z0-9]*' | head -n 1)
    figure preview_mode$TAG "${mode#preview=}"
    first=$(signature)
    if [ -z "$CRC" ]; then skip preview$TAG "this display driver gives no CRC"
    elif wait_for_change "$first" > /dev/null; then pass preview$TAG
    else fail preview$TAG "the display did not change between two preview frames ($first)"; fi
    stop
}

case $target in
    vm) setup_vm ;;
    pi) setup_pi ;;
    *) echo "HIL: FAIL setup: unknown target $target"; exit 1 ;;
esac
scenario_selftest
scenario_flow
scenario_bounce_and_hold
scenario_camera_unplug
scenario_gpio_unplug
scenario_display_later
scenario_missing

# The camera scenarios again with the v4l2 backend, on vivid's webcam (its capture node is the first one
# without a media-controller pipeline, so camera.id = "first" finds it past vimc's).
if [ -d /sys/bus/platform/drivers/vivid ]; then
    CAMERA_BACKEND=v4l2
    CAMERA_DRIVER=vivid
    TAG=-v4l2
    scenario_preview
    scenario_flow
    scenario_camera_unplug
else
    skip v4l2 "no vivid driver (the v4l2 camera backend's scenarios need it)"
fi
