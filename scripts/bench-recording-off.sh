#!/usr/bin/env bash
# What the recorders cost when they are off: W2 and W3 World ticks of this tree against a
# revision without them (default: the merge base with main), and of this tree with the
# `tracing-spans` feature compiled in (no subscriber) against this tree without it.
#
# The three bench binaries (crates/laige-sim/benches/recording.rs, `--off` variants) are
# built first, then run one after the other, round after round, so load changes on a
# shared machine hit them alike; the script prints each round's figures and the median
# ratio per variant. The older revision is exported with `git archive` into target/, and
# gets this bench file with its recording variants cut out (target/bench-base/src).
#
# Usage, from anywhere: bash scripts/bench-recording-off.sh [BASE_REV] [ROUNDS]
# (ROUNDS 0 skips the timed rounds and only counts instructions.)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
base_rev="${1:-$(git merge-base HEAD main)}"
rounds="${2:-5}"
base="$root/target/bench-base/src"

echo "bench-recording-off: base $(git rev-parse --short "$base_rev"), $rounds rounds"
rm -rf "$base"
mkdir -p "$base"
git archive "$base_rev" | tar -x -C "$base"
sed '/recording:begin/,/recording:end/d' crates/laige-sim/benches/recording.rs \
  >"$base/crates/laige-sim/benches/recording.rs"
if ! grep -q 'name = "recording"' "$base/crates/laige-sim/Cargo.toml"; then
  printf '\n[[bench]]\nname = "recording"\nharness = false\n' >>"$base/crates/laige-sim/Cargo.toml"
fi

# Builds a bench binary and prints its path.
build() {
  local dir="$1" target="$2"
  shift 2
  (cd "$dir" && CARGO_TARGET_DIR="$target" cargo bench -p laige-sim --bench recording --no-run \
    --message-format=json "$@" 2>/dev/null) |
    grep -o '"executable":"[^"]*recording-[^"]*"' | tail -1 | cut -d'"' -f4
}
# The other revision gets its own target directory: cargo names a path package's artifacts
# by its path inside the workspace, so two trees' `laige-diag` would overwrite each other.
# The feature build shares this tree's: the feature changes the names of what it changes.
bin_base=$(build "$base" "$root/target/bench-base/target")
bin_head=$(build "$root" "$root/target")
bin_spans=$(build "$root" "$root/target" --features tracing-spans)
echo "binaries: $bin_base $bin_head $bin_spans"

out="$root/target/bench-recording-off"
mkdir -p "$out"
[ "$rounds" -gt 0 ] || skip_timing=1
for round in $(seq 1 "$rounds"); do
  for which in base head spans; do
    bin="bin_$which"
    "${!bin}" --off >"$out/$which-$round.txt"
  done
  echo "round $round done"
done

# Per variant and round: head / base and spans / head, then the median over rounds.
[ -n "${skip_timing:-}" ] || python3 - "$out" "$rounds" <<'EOF'
import sys, statistics
out, rounds = sys.argv[1], int(sys.argv[2])
def read(which, r):
    figures = {}
    for line in open(f"{out}/{which}-{r}.txt"):
        parts = line.split()
        if len(parts) >= 2 and parts[0][:2] in ("w2", "w3"):
            figures[parts[0]] = float(parts[1])
    return figures
rows = {}
for r in range(1, rounds + 1):
    base, head, spans = read("base", r), read("head", r), read("spans", r)
    for name in base:
        rows.setdefault(name, []).append((base[name], head[name], spans[name]))
print(f"{'variant':<18} {'base ns':>9} {'head ns':>9} {'spans ns':>9} {'head/base':>10} {'spans/head':>11}")
for name, values in rows.items():
    b = statistics.median(v[0] for v in values)
    h = statistics.median(v[1] for v in values)
    s = statistics.median(v[2] for v in values)
    hb = statistics.median(v[1] / v[0] for v in values)
    sh = statistics.median(v[2] / v[1] for v in values)
    print(f"{name:<18} {b:>9.0f} {h:>9.0f} {s:>9.0f} {hb:>10.3f} {sh:>11.3f}")
EOF

# Instructions per tick, which the machine's load does not move: callgrind counts a run of
# 3,000 ticks and one of 1,000 of each sequential variant; the difference is 2,000 ticks
# (the first ticks size the recorders' buffers).
# (The two-thread variants are left out: their idle threads' spinning is not a tick's work.)
if ! command -v valgrind >/dev/null; then
  echo "valgrind is not installed: no instruction counts"
  exit 0
fi
# Only `run_systems` is counted (`--toggle-collect`), so neither setup nor the clock's
# calibration at start-up enters: the count of N ticks is N ticks' work.
count() {
  valgrind --tool=callgrind --toggle-collect='*run_systems*' --callgrind-out-file=/dev/null \
    "$1" --only "$2" --ticks "$3" 2>&1 | grep -o 'Collected : [0-9]*' | grep -o '[0-9]*$'
}
printf '%-18s %12s %12s %12s %10s %11s\n' variant "base instr" "head instr" "spans instr" head/base spans/head
for variant in w2-seq-timing w2-seq-untimed w3-seq-timing w3-seq-untimed; do
  per_tick=()
  for which in base head spans; do
    bin="bin_$which"
    long=$(count "${!bin}" "$variant" 3000)
    short=$(count "${!bin}" "$variant" 1000)
    per_tick+=($(((long - short) / 2000)))
  done
  python3 -c "import sys; b,h,s=map(int,sys.argv[2:]); print(f'{sys.argv[1]:<18} {b:>12} {h:>12} {s:>12} {h/b:>10.4f} {s/h:>11.4f}')" \
    "$variant" "${per_tick[@]}"
done

# And what recording costs when on, in this tree: the timeline's target is 2x timing on.
for variant in w2-seq-timing w2-seq-timeline w2-seq-checksums; do
  long=$(count "$bin_head" "$variant" 3000)
  short=$(count "$bin_head" "$variant" 1000)
  printf '%-18s %12s instructions per tick\n' "$variant" $(((long - short) / 2000))
done
