#!/usr/bin/env bash
# ozz-animation-rs 0.11's own SamplingJob on the corpus clip: its output against exact evaluation
# of our import at every frame (fails above 1e-6), then N characters timed against the batch
# player in the same process; JSON rows in `inbetween bench --json`'s shape on standard output.
#
# ozz-animation-rs 0.11.0 (the newest release) does not build as published with today's
# toolchains: it needs `#![feature(portable_simd)]` (nightly, or RUSTC_BOOTSTRAP=1 on stable) and
# calls `Mask::to_int`, which the standard library has since renamed `Mask::to_simd`. This script
# copies the release from cargo's registry cache into ozz-patched/ (ignored by git), renames
# those four calls, and builds with RUSTC_BOOTSTRAP=1. Nothing else in the crate is changed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$here/target}
find_src() { ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ozz-animation-rs-0.11.0 2>/dev/null | head -1 || true; }
src=$(find_src)
if [ -z "$src" ]; then
    cargo fetch --manifest-path "$here/fetch/Cargo.toml"
    src=$(find_src)
fi
rm -rf "$here/ozz-patched"
cp -r "$src" "$here/ozz-patched"
chmod -R u+w "$here/ozz-patched"
sed -i 's/\.to_int()/.to_simd()/g' "$here/ozz-patched/src/math.rs"
[ "$(grep -c 'to_simd()' "$here/ozz-patched/src/math.rs")" = 4 ] || { echo "unexpected ozz-animation-rs source" >&2; exit 1; }
RUSTC_BOOTSTRAP=1 cargo run --quiet --release --manifest-path "$here/Cargo.toml" -- "$@"
