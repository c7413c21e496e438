#!/usr/bin/env bash
# avahi-daemon for the mDNS test (Tests/SnapAppTests/LocalNameTests.swift), where none runs: a CI machine
# or a container has the packages but no systemd to start the daemon and the system D-Bus it talks over.
#
#   Tests/Support/avahi.sh start   start the system D-Bus and avahi-daemon if they are not running
#   Tests/Support/avahi.sh stop    stop what `start` started (a daemon that was running stays)
#
# Needs root (both are system daemons); otherwise it says so, and the test is skipped with that reason.
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
    if [[ ! -S /run/dbus/system_bus_socket ]]; then
        mkdir -p /run/dbus
        dbus-daemon --system --fork
        echo dbus >>"$started"
    fi
    avahi-daemon --daemonize --no-chroot
    echo avahi >>"$started"
    for _ in $(seq 50); do
        [[ -S /run/avahi-daemon/socket ]] && { echo "avahi-daemon: started"; exit 0; }
        sleep 0.1
    done
    echo "avahi-daemon did not come up" >&2
    exit 1
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
