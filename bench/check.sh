#!/usr/bin/env bash
# bench/check.sh — how long duet-check takes to judge todo, the reference
# Duet app, as a person runs it (isolated where the kernel allows).
#
# Builds duet-check and todo, runs `duet-check check todo` RUNS times and
# prints the median wall time beside the target and their ratio, and how
# the runs were isolated.
#
#   RUNS=N     checks to time (default 5)
#   TARGET=S   the target, in seconds (default 5)
#   STRICT=1   exit 1 when the median is over the target
set -euo pipefail

RUNS=${RUNS:-5}
TARGET=${TARGET:-5}
STRICT=${STRICT:-0}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
go build -o "$tmp/duet-check" ./conformance/cmd/duet-check
go build -o "$tmp/todo" ./examples/todo/cmd/todo

times=()
for _ in $(seq 1 "$RUNS"); do
	start=$(date +%s%N)
	DUET_CHECK_FORMAT=json "$tmp/duet-check" check "$tmp/todo" >"$tmp/report.json"
	times+=($((($(date +%s%N) - start) / 1000000)))
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
isolation=$(sed -n 's/.*"isolation":"\([^"]*\)".*/\1/p' "$tmp/report.json")
ratio=$(awk -v m="$median" -v t="$TARGET" 'BEGIN { printf "%.2f", m / 1000 / t }')
echo "runs (ms): ${times[*]}"
echo "isolated by: $isolation"
printf 'RESULT name=check-todo median_ms=%s target_ms=%s ratio=%s\n' "$median" "$((TARGET * 1000))" "$ratio"
if awk -v r="$ratio" 'BEGIN { exit !(r > 1) }' && [[ $STRICT == 1 ]]; then
	echo "the median is over the target" >&2
	exit 1
fi
