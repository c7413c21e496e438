#!/usr/bin/env bash
# The unit's checks: `systemd-analyze verify` must be clean, and `systemd-analyze security` must rate
# the unit's exposure 2.0 or lower. Both run against a throwaway root holding the unit, the binary at
# the path ExecStart names, and the host's own units (verify follows the dependencies).
#
#   Tests/Systemd/check.sh [path/to/snapstation]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
binary="${1:-$repo/.build/debug/snapstation}"
if ! command -v systemd-analyze >/dev/null; then
    echo "systemd checks skipped: no systemd-analyze on this machine"
    exit 0
fi
[[ -x "$binary" ]] || { echo "no snapstation binary at $binary (swift build first)" >&2; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/bin" "$root/etc/systemd/system" "$root/usr/lib/systemd"
cp "$binary" "$root/usr/bin/snapstation"
cp "$repo/systemd/snapstation.service" "$root/etc/systemd/system/"
cp -a /usr/lib/systemd/system "$root/usr/lib/systemd/"

echo "systemd-analyze verify:"
output=$(systemd-analyze verify --root="$root" /etc/systemd/system/snapstation.service 2>&1) || {
    echo "$output"
    exit 1
}
[[ -z "$output" ]] || { echo "$output"; echo "verify printed warnings" >&2; exit 1; }
echo "  clean"

exposure=$(systemd-analyze security --offline=true --root="$root" snapstation.service 2>&1 |
    grep -o 'Overall exposure level for snapstation.service: [0-9.]*' | grep -o '[0-9.]*$')
echo "systemd-analyze security: exposure $exposure (target: 2.0 or lower)"
awk -v value="$exposure" 'BEGIN { exit !(value != "" && value <= 2.0) }'
