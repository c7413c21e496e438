#!/usr/bin/env bash
# The unit's checks: `systemd-analyze verify` must be clean, and `systemd-analyze security` must rate
# the unit's exposure no higher than the recorded value (a change to the unit may keep it or lower it,
# never raise it). Both run against a throwaway root holding the unit, the binary at the path ExecStart
# names, and the host's own units (verify follows the dependencies). Without systemd-analyze (Debian's
# systemd package, which .ci/install-deps installs) the check fails: it cannot pass unchecked.
#
#   Tests/Systemd/check.sh [path/to/snapstation]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
binary="${1:-$repo/.build/debug/snapstation}"
# The exposure recorded for systemd/snapstation.service (systemd 252, Debian bookworm; systemd/README.md).
recorded_exposure=1.8
if ! command -v systemd-analyze >/dev/null; then
    echo "systemd checks FAILED: no systemd-analyze on this machine (apt-get install systemd, or .ci/install-deps)" >&2
    exit 1
fi
[[ -x "$binary" ]] || { echo "no snapstation binary at $binary (swift build first)" >&2; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/bin" "$root/etc/systemd/system" "$root/usr/lib/systemd"
cp "$binary" "$root/usr/bin/snapstation"
cp "$repo/systemd/snapstation.service" "$root/etc/systemd/system/"
cp -a /usr/lib/systemd/system "$root/usr/lib/systemd/"

# The open-file limit the unit says is the one the restore of 5,000 files is tested under.
unit_limit=$(sed -n 's/^LimitNOFILE=//p' "$repo/systemd/snapstation.service")
tested_limit=$(grep -o 'openFiles: [0-9]*' "$repo/Tests/SnapAppTests/RestoreEndToEndTests.swift" | grep -o '[0-9]*$' | head -1)
echo "LimitNOFILE: the unit's ${unit_limit:-none}, the restore's test's ${tested_limit:-none}"
[[ -n "$unit_limit" && "$unit_limit" == "$tested_limit" ]] || {
    echo "the unit's LimitNOFILE is not the one the restore is tested under" >&2
    exit 1
}

echo "systemd-analyze verify:"
output=$(systemd-analyze verify --root="$root" /etc/systemd/system/snapstation.service 2>&1) || {
    echo "$output"
    exit 1
}
[[ -z "$output" ]] || { echo "$output"; echo "verify printed warnings" >&2; exit 1; }
echo "  clean"

exposure=$(systemd-analyze security --offline=true --root="$root" snapstation.service 2>&1 |
    grep -o 'Overall exposure level for snapstation.service: [0-9.]*' | grep -o '[0-9.]*$' || true)
echo "systemd-analyze security: exposure $exposure (recorded: $recorded_exposure; it may not be higher)"
awk -v value="$exposure" -v recorded="$recorded_exposure" \
    'BEGIN { exit !(value != "" && value + 0 <= recorded + 0) }' || {
    echo "the unit's exposure ${exposure:-(not printed)} is above the recorded $recorded_exposure" >&2
    exit 1
}
