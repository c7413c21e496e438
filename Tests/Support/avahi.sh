#!/usr/bin/env bash
# avahi-daemon for the mDNS test (Tests/SnapAppTests/LocalNameTests.swift), where none runs: a CI machine
# or a container has the packages but no systemd to start the daemon and the system D-Bus it talks over.
#
#   Tests/Support/avahi.sh start   start the system D-Bus and avahi-daemon if they are not running
#   Tests/Support/avahi.sh stop    stop what `start` started (a daemon that was running stays)
#
# Needs root (both are system daemons). When a daemon cannot be started, it says why and exits 0: the test
# is then skipped with its reason (LocalNameTests checks for the socket), and the other tests run.
set -euo pipefail
started=/tmp/snapstation-avahi-started

case "${1:-}" in
start)
    if [[ -S /run/avahi-daemon/socket ]] && avahi-daemon --check 2>/dev/null; then
        echo "avahi-daemon: running already"
        exit 0
    fi
    if [[ $(id -u) -ne 0 ]]; then
        echo "avahi-daemon is not running and only root can start it: the mDNS test will be skipped"
        exit 0
    fi
    : >"$started"
    # A container restarted from a snapshot keeps /run's files but not its processes: a socket and pid
    # file with no daemon behind them would stop both daemons from starting, so a bus that does not
    # answer is cleared first.
    if ! dbus-send --system --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.GetId \
        >/dev/null 2>&1; then
        rm -f /run/dbus/system_bus_socket /run/dbus/pid
        mkdir -p /run/dbus
        if ! error=$(dbus-daemon --system --fork 2>&1); then
            echo "the system D-Bus did not start ($error): the mDNS test will be skipped"
            exit 0
        fi
        echo dbus >>"$started"
    fi
    rm -f /run/avahi-daemon/pid /run/avahi-daemon/socket
    if ! error=$(avahi-daemon --daemonize --no-chroot 2>&1); then
        echo "avahi-daemon did not start ($error): the mDNS test will be skipped"
        exit 0
    fi
    echo avahi >>"$started"
    for _ in $(seq 50); do
        [[ -S /run/avahi-daemon/socket ]] && { echo "avahi-daemon: started"; exit 0; }
        sleep 0.1
    done
    avahi-daemon --kill 2>/dev/null || true
    echo "avahi-daemon did not open its socket in 5 s: the mDNS test will be skipped"
    ;;
stop)
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
