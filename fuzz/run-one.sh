#!/usr/bin/env bash
# Fuzzes one target for 10 minutes on one core (in this process, so targets can run side by side): ./run-one.sh TARGET [SECONDS]
set -euo pipefail
cd "$(dirname "$0")"
target="$1"
seconds="${2:-600}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/work/target-fuzz}"
dict=()
if [ -f "dict/$target.dict" ]; then dict=("-dict=dict/$target.dict"); fi
mkdir -p "corpus/$target" "artifacts/$target"
cargo +nightly fuzz run --target-dir "$CARGO_TARGET_DIR" "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout="${FUZZ_TIMEOUT:-10}" -print_final_stats=1 \
    -artifact_prefix="artifacts/$target/" "${dict[@]}"
