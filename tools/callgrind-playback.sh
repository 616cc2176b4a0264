#!/usr/bin/env bash
# Instructions per channel-frame of each playback method, counted by valgrind's callgrind (stable
# on a noisy machine): every method runs twice, for FRAMES1 and FRAMES2 frames, and the difference
# of the two instruction totals divided by channels × (FRAMES2 − FRAMES1) is the per-frame cost
# (workload setup and compilation cancel out).
#
# Usage: tools/callgrind-playback.sh [scalar-channels] [quaternion-channels]   (default 1000 300)
set -euo pipefail
cd "$(dirname "$0")/.."
scalars=${1:-1000}
quats=${2:-300}
frames1=100
frames2=400
cargo build --release -q -p inbetween-bench --example playback_instructions
bin=${CARGO_TARGET_DIR:-target}/release/examples/playback_instructions

# One rayon thread and the stream compiled once into a cache file: with more threads the
# compile's idle workers spin for a number of instructions that differs from run to run, which
# swamps the per-frame difference (a run of 400 frames could count fewer than one of 100).
export RAYON_NUM_THREADS=1
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT

count() { # method workload channels frames → instructions
    PLAYBACK_STREAM_CACHE="$cache/$1-$2-$3" \
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" "$3" "$4" 2>&1 |
        sed -n 's/.*I *refs: *//p' | tr -d ,
}

printf '%-28s %-10s %9s %22s\n' method workload channels instructions/ch-frame
run() { # method workload channels
    local a b
    count "$1" "$2" "$3" 1 >/dev/null # writes the stream cache, so both counts below read it
    a=$(count "$1" "$2" "$3" "$frames1")
    b=$(count "$1" "$2" "$3" "$frames2")
    printf '%-28s %-10s %9s %22.1f\n' "$1" "$2" "$3" \
        "$(echo "($b - $a) / ($3 * ($frames2 - $frames1))" | bc -l)"
}
for m in inbetween-batch-f32 inbetween-batch-f64 inbetween-batch-fixed inbetween-player-f32 \
    inbetween-exact hermite-soa-script streaming-ceiling; do
    run "$m" scalar "$scalars"
done
for m in inbetween-batch-f32 inbetween-batch-f32-degree4 inbetween-batch-f32-raw inbetween-batch-fixed inbetween-player-f32 \
    inbetween-exact slerp-soa-script streaming-ceiling; do
    run "$m" quaternion "$quats"
done
