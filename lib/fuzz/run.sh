#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 600) and appends a summary line per target to
# FUZZING.md's log. cargo-fuzz needs nightly features; RUSTC_BOOTSTRAP=1 enables them on the
# stable toolchain this project uses.  Usage: bash lib/fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    targets=(install_config ignition_config mirror_args)
fi
export RUSTC_BOOTSTRAP=1
for target in "${targets[@]}"; do
    corpus="$(mktemp -d)"
    log="$(mktemp)"
    status=0
    cargo fuzz run -O "$target" "$corpus" "fuzz/seeds/$target" -- \
        -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=512 -timeout=10 \
        -print_final_stats=1 >"$log" 2>&1 || status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*' || echo "?")
    if [ "$status" -eq 0 ]; then verdict="no crash"; else verdict="CRASH (exit $status), see fuzz/artifacts/$target"; fi
    echo "| $(date -u +%Y-%m-%d) | $target | ${seconds}s | $runs | $cov | $verdict |"
    tail -n 5 "$log" >&2
    rm -rf "$corpus" "$log"
done
