#!/usr/bin/env bash
# Runs the laige-executor test binaries under valgrind's DRD (debug build, where the pool
# annotates its happens-before edges). Exits non-zero on the first binary with a report.
# Usage, from the workspace root: bash crates/laige-executor/valgrind/drd.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
supp=crates/laige-executor/valgrind/drd.supp
# binary PACKAGE TEST: the path of that integration test's executable (debug build).
binary() {
  cargo test -q -p "$1" --test "$2" --no-run --message-format=json 2>/dev/null |
    grep -o '"executable":"[^"]*"' | cut -d'"' -f4
}
drd() {
  RUST_BACKTRACE=0 valgrind --tool=drd --error-exitcode=1 --suppressions="$supp" "$@"
}
# Overlap and nap tests are skipped: valgrind runs one thread at a time, so two systems
# never overlap and an idle thread rarely gets to nap; they are not race checks. (Timing
# and auto-mode tests run: they time systems on a manual clock.)
drd "$(binary laige-executor run)" --test-threads 1 --nocapture \
  --skip conflicting_systems_never_overlap --skip an_idle_
drd "$(binary laige-executor plan)" --test-threads 1 --nocapture
# Shared loops (`run_batches`, what `par_each` runs on): helpers join, claim and leave, and a
# panicking batch's payload crosses to the owner. The test that insists a helper joined is
# skipped, for the same reason as no_alloc below.
drd "$(binary laige-executor batches)" --test-threads 1 --nocapture \
  --skip every_batch_runs_once_and_idle_workers_help
# A World ticking on the executor: systems with commands, resources and snapshots, writers
# of one component in disjoint tables, and the commands applied between tracks.
drd "$(binary laige-world on_executor)" --test-threads 1 --nocapture
# The no_alloc binary is left out: under valgrind the calling thread can claim every system
# before the worker is scheduled, so its "a worker ran" and "a thread napped" checks can
# fail there; they are not race checks either.
echo "drd: no data race reported"
