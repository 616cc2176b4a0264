#!/usr/bin/env bash
# Fuzzes every target in turn, 10 minutes each on one core: ./run-all.sh [SECONDS]
set -uo pipefail
cd "$(dirname "$0")"
mkdir -p logs
for target in document_json expression stream gltf; do
    ./run-one.sh "$target" "${1:-600}" > "logs/$target.log" 2>&1
    echo "$target: exit $?" >> logs/summary.txt
done
