#!/bin/bash
# Runs inside the Debian image under systemd (systemtest.service): the unit as systemd runs it.
# Lines starting "HIL:" are the results, on the serial console.
pass() { echo "HIL: PASS $1"; }
fail() { echo "HIL: FAIL $1: $2"; }
show() { systemctl show -p "$1" --value snapstation.service; }

for _ in $(seq 120); do [ "$(systemctl is-active snapstation)" = active ] && break; sleep 1; done
if [ "$(systemctl is-active snapstation)" = active ]; then
    pass "ready (Type=notify: active, status \"$(show StatusText)\")"
else
    fail ready "$(systemctl status snapstation --no-pager | tail -n 20)"
fi

# A ping within the watchdog's interval (8 s on x86, 30 s under the arm64 VM's emulation): waited for,
# up to twice that.
first=$(show WatchdogTimestampMonotonic)
interval=$(systemctl show -p WatchdogUSec --value snapstation.service | tr -dc 0-9)  # "30s"
[ "${interval:-0}" -gt 0 ] && [ "$interval" -le 120 ] || interval=60
second=$first
for _ in $(seq $((interval * 2))); do
    second=$(show WatchdogTimestampMonotonic)
    [ "$second" != "$first" ] && break
    sleep 1
done
if [ -n "$first" ] && [ "$first" != 0 ] && [ "$second" != "$first" ]; then pass watchdog-pings; else
    fail watchdog-pings "WatchdogTimestampMonotonic $first then $second"
fi

pid=$(show MainPID)
user=$(ps -o user= -p "$pid")
if [ "$user" = snapstation ]; then pass "unprivileged (runs as $user)"; else fail unprivileged "runs as $user"; fi

# The press needs the station holding the shutter line: it opens the chip when it starts, or within its
# retry after the chip comes (slow under emulation), and logs "buttons on" each time.
for _ in $(seq 120); do journalctl -u snapstation --no-pager | grep -q "buttons on " && break; sleep 1; done
sim=$(cat /sys/kernel/config/gpio-sim/snap/bank0/chip_name)
line=/sys/devices/platform/$(cat /sys/kernel/config/gpio-sim/snap/dev_name)/$sim/sim_gpio17/pull
echo pull-down > "$line"; sleep 0.2; echo pull-up > "$line"
for _ in $(seq 120); do ls /var/lib/snapstation/outbox/*/*/*/*.jpg >/dev/null 2>&1 && break; sleep 1; done
if ls /var/lib/snapstation/outbox/*/*/*/*.jpg >/dev/null 2>&1; then pass "flow (a press through the hardened unit gives a shared photo)"; else
    fail flow "$(journalctl -u snapstation --no-pager | tail -n 20)"
fi

# The station must not have died on its way here. It did once (SIGSEGV as the upload began, 2026-11-23;
# not seen in 14 runs since, with or without the camera shim's fix of 2026-11-24): say so with what it
# logged last, which holds the crash report's signal, thread and stack (systemd/README.md).
restarts=$(show NRestarts)
if [ "$restarts" = 0 ]; then pass "no-crash (no restart through the flow)"; else
    fail no-crash "restarted $restarts time(s): $(journalctl -u snapstation --no-pager |
        grep -B 6 -m 1 'Main process exited' | tr '\n' '|')"
fi

pid=$(show MainPID)
kill -USR2 "$pid"
# One restart, by the watchdog, and READY again within the start timeout.
for _ in $(seq 90); do
    [ "$(show NRestarts)" = $((restarts + 1)) ] && [ "$(systemctl is-active snapstation)" = active ] && break
    sleep 1
done
journal=$(journalctl -u snapstation --no-pager)
if [ "$(show NRestarts)" = $((restarts + 1)) ] && [ "$(systemctl is-active snapstation)" = active ] &&
    echo "$journal" | grep -q "Failed with result 'watchdog'"; then
    pass "watchdog-restart (a hung event loop in a live process: killed by the watchdog, READY again as PID $(show MainPID), showing \"$(show StatusText)\")"
else
    fail watchdog-restart "NRestarts $restarts -> $(show NRestarts), $(systemctl is-active snapstation); $(echo "$journal" | grep -E 'Failed with|Watchdog' | tail -n 4)"
fi
journalctl -u snapstation --no-pager | grep -A60 "Sanitizer" | head -150 | sed "s/^/HIL: ASAN /"
echo "HIL: DONE"
systemctl poweroff
