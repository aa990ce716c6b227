#!/usr/bin/env bash
# Runs the tests of the crates with `unsafe` code (laige-storage, laige-query, laige-world,
# laige-executor) under Miri, once with Stacked Borrows and once with Tree Borrows, when a
# nightly toolchain with Miri is installed. Not a CI gate: a full run takes tens of minutes on
# two cores. docs/testing.md records the last run's results and times.
#
# Usage, from anywhere: bash scripts/miri.sh [extra `cargo miri test` arguments]
# Install Miri with: rustup component add --toolchain nightly miri rust-src
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo +nightly miri --version >/dev/null 2>&1; then
  echo "miri: no nightly toolchain with Miri; install it with"
  echo "  rustup component add --toolchain nightly miri rust-src"
  exit 2
fi

# Property tests run a few cases each: Miri executes every one about 1,000 times slower.
export PROPTEST_CASES="${PROPTEST_CASES:-4}"
# What runs: the World's unit and integration tests (storage, queries, snapshots, commands,
# a World ticking on the executor), and the executor's plans and runs. The executor's nap
# and overlap tests wait on real time and thread timing, which Miri's scheduler makes
# meaningless (as under valgrind), so they are skipped; so is the World test that spawns
# 70,000 entities (hours under Miri; the same growth path runs at smaller sizes).
targets=(
  "-p laige-storage --lib"
  "-p laige-query --lib"
  "-p laige-world --lib --test world --test on_executor -- --skip capacity_grows_past_65536_entities"
  "-p laige-executor --lib --test plan --test run -- --skip an_idle_ --skip conflicting_systems_never_overlap --skip loom"
)

for borrows in stacked tree; do
  # Isolation off: proptest looks up its regression files and insta its snapshots.
  # Leaks ignored: test helpers leak names on purpose (`Box::leak` for `&'static str`
  # specs), thousands per run; a leak is not undefined behaviour.
  flags="-Zmiri-disable-isolation -Zmiri-ignore-leaks"
  [ "$borrows" = tree ] && flags="$flags -Zmiri-tree-borrows"
  for target in "${targets[@]}"; do
    echo "==> miri ($borrows borrows): cargo miri test $target"
    start=$(date +%s)
    # shellcheck disable=SC2086 # the target is a list of arguments
    MIRIFLAGS="$flags ${MIRIFLAGS:-}" cargo +nightly miri test $target "$@"
    echo "<== miri ($borrows borrows): ok in $(( $(date +%s) - start )) s"
  done
done
echo "miri: no undefined behaviour found"
