#!/usr/bin/env bash
# avahi-daemon for the mDNS test (Tests/SnapAppTests/LocalNameTests.swift), where none runs: a CI machine
# or a container has the packages but no systemd to start the daemon and the system D-Bus it talks over.
#
#   Tests/Support/avahi.sh start   start the system D-Bus and avahi-daemon if they are not running
#   Tests/Support/avahi.sh stop    stop what `start` started (a daemon that was running stays)
#
# Needs root (both are system daemons). When a daemon cannot be started, or avahi-utils is missing, it
# prints "mDNS test will be SKIPPED: REASON", writes REASON to /tmp/snapstation-avahi-skipped (Tests/run
# repeats it under the Swift tests and in its summary) and exits 0: the test is then skipped
# (LocalNameTests checks for the socket and avahi-resolve), and the other tests run.
set -euo pipefail
started=/tmp/snapstation-avahi-started
skipped=/tmp/snapstation-avahi-skipped

# Says loudly that the mDNS test will not run, and why, and leaves the reason for Tests/run.
skip() {
    echo "mDNS test will be SKIPPED: $1"
    echo "$1" >"$skipped"
    exit 0
}

case "${1:-}" in
start)
    rm -f "$skipped"
    [[ -x /usr/bin/avahi-resolve ]] || skip "avahi-utils is not installed (no /usr/bin/avahi-resolve)"
    if [[ -S /run/avahi-daemon/socket ]] && avahi-daemon --check 2>/dev/null; then
        echo "avahi-daemon: running already"
        exit 0
    fi
    command -v avahi-daemon >/dev/null || skip "avahi-daemon is not installed"
    [[ $(id -u) -eq 0 ]] || skip "avahi-daemon is not running and only root can start it"
    : >"$started"
    # A container restarted from a snapshot keeps /run's files but not its processes: a socket and pid
    # file with no daemon behind them would stop both daemons from starting, so a bus that does not
    # answer is cleared first.
    if ! dbus-send --system --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.GetId \
        >/dev/null 2>&1; then
        rm -f /run/dbus/system_bus_socket /run/dbus/pid
        mkdir -p /run/dbus
        error=$(dbus-daemon --system --fork 2>&1) || skip "the system D-Bus did not start ($error)"
        echo dbus >>"$started"
    fi
    rm -f /run/avahi-daemon/pid /run/avahi-daemon/socket
    error=$(avahi-daemon --daemonize --no-chroot 2>&1) || skip "avahi-daemon did not start ($error)"
    echo avahi >>"$started"
    for _ in $(seq 50); do
        [[ -S /run/avahi-daemon/socket ]] && { echo "avahi-daemon: started"; exit 0; }
        sleep 0.1
    done
    avahi-daemon --kill 2>/dev/null || true
    skip "avahi-daemon did not open its socket in 5 s"
    ;;
stop)
    rm -f "$skipped"
    [[ -f $started ]] || exit 0
    if grep -q avahi "$started"; then avahi-daemon --kill 2>/dev/null || true; fi
    if grep -q dbus "$started"; then pkill -f "dbus-daemon --system" 2>/dev/null || true; fi
    rm -f "$started"
    ;;
*)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
