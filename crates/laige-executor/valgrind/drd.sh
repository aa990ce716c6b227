#!/usr/bin/env bash
# Runs the laige-executor test binaries under valgrind's DRD (debug build, where the pool
# annotates its happens-before edges). Exits non-zero on the first binary with a report.
# Usage, from the workspace root: bash crates/laige-executor/valgrind/drd.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
supp=crates/laige-executor/valgrind/drd.supp
binary() {
  cargo test -q -p laige-executor --test "$1" --no-run --message-format=json 2>/dev/null |
    grep -o '"executable":"[^"]*"' | cut -d'"' -f4
}
drd() {
  RUST_BACKTRACE=0 valgrind --tool=drd --error-exitcode=1 --suppressions="$supp" "$@"
}
# Timing, overlap and nap tests are skipped: valgrind runs one thread at a time, which
# changes what they measure; they are not race checks.
drd "$(binary run)" --test-threads 1 --nocapture --skip auto_ --skip conflicting_systems_never_overlap \
  --skip an_idle_
drd "$(binary plan)" --test-threads 1 --nocapture
# The no_alloc binary is left out: under valgrind the calling thread can claim every system
# before the worker is scheduled, so its "a worker ran" and "a thread napped" checks can
# fail there; they are not race checks either.
echo "drd: no data race reported"
