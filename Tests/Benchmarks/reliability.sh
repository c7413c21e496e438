#!/bin/sh
# The reliability suite's long variants, with their figures: 200 power cuts of the real station in
# group and meal mode, and a soak of 10,000 capture cycles. `Tests/run` runs the short ones (30 cuts,
# 2,000 cycles); this is the run whose figures docs/benchmarks.md reports.
#
#   Tests/Benchmarks/reliability.sh --long     # about 25 minutes on 2 cores
#   Tests/Benchmarks/reliability.sh            # the short variants, as in Tests/run
#
# Needs a debug build with the tests (`swift build --build-tests`) and PostgreSQL for the group's stand-in
# (started here through Tests/Group/postgres.sh).
set -eu
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"

cuts=30
cycles=2000
if [ "${1:-}" = "--long" ]; then
    cuts=200
    cycles=10000
fi

Tests/Group/postgres.sh start >/dev/null
eval "$(Tests/Group/postgres.sh env)"

run() {
    name=$1
    shift
    started=$(date +%s)
    env "$@" swift test --skip-build --filter "$name" 2>&1 |
        grep -E "power cuts:|soak:|✘|passed after|failed after|error:" || true
    echo "$name: $(($(date +%s) - started)) s"
}

run PowerCutSuiteTests SNAPSTATION_POWERCUT_CYCLES=$cuts
run SoakTests SNAPSTATION_SOAK_CYCLES=$cycles
