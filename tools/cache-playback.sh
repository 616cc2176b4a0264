#!/usr/bin/env bash
# Cache misses per channel-frame of the scalar workload's f32 and fixed banks at scale, by
# valgrind's callgrind cache simulation (D1 48 KB 12-way, last level set to this machine's L2,
# 2 MB 16-way): the bank is built uninstrumented (examples/bank_cache.rs says `ready`, then
# pauses while `callgrind_control -i on` switches the simulation on), every precision plays
# FRAMES1 and FRAMES2 frames, and the difference of the two totals divided by
# channels × (FRAMES2 − FRAMES1) is the per-frame figure (setup and warm-up cancel out).
#
# Usage: tools/cache-playback.sh [channels] [binary]   (default 100000, the example built here)
# The compiled streams are kept in ${CACHE_DIR:-/tmp/inbetween-cache}.
set -euo pipefail
cd "$(dirname "$0")/.."
channels=${1:-100000}
frames1=100
frames2=300
bin=${2:-}
if [ -z "$bin" ]; then
    cargo build --release -q -p inbetween-bench --example bank_cache
    bin=${CARGO_TARGET_DIR:-target}/release/examples/bank_cache
fi
dir=${CACHE_DIR:-/tmp/inbetween-cache}
mkdir -p "$dir"

count() { # precision frames → "Ir Dr Dw D1mr D1mw LLdmr LLdmw"
    local stream=$dir/$1-$channels.ibs log out
    [ -f "$stream" ] || "$bin" "$1" "$channels" 0 "$stream" 2>/dev/null
    log=$(mktemp) out=$(mktemp)
    valgrind --tool=callgrind --instr-atstart=no --cache-sim=yes \
        --D1=49152,12,64 --LL=2097152,16,64 --callgrind-out-file="$out" \
        "$bin" "$1" "$channels" "$2" "$stream" 5000 2>"$log" &
    local pid=$!
    until grep -q '^ready' "$log"; do sleep 1; done
    callgrind_control -i on "$pid" >/dev/null 2>&1
    wait "$pid"
    sed -n 's/^summary: //p' "$out"
    rm -f "$log" "$out"
}

echo "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw (per channel-frame)"
for p in f32 fixed; do
    read -ra a <<<"$(count "$p" "$frames1")"
    read -ra b <<<"$(count "$p" "$frames2")"
    printf '%-6s' "$p"
    for i in "${!a[@]}"; do
        printf ' %8.3f' "$(echo "(${b[$i]} - ${a[$i]}) / ($channels * ($frames2 - $frames1))" | bc -l)"
    done
    echo
done
