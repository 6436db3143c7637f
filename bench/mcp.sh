#!/usr/bin/env bash
# bench/mcp.sh — what one MCP tools/call costs, by runner.
#
# Times a tools/call through a client and the app's server joined in memory
# (BenchmarkToolCall): meridian's models_list and todo's list of 100, each
# with the command run in the server's process on an app made for the call
# (mcp.InProcess) and as a child process (mcp.Exec, the default), in one
# run, one package at a time. Prints each in-process median call beside its
# target (2 ms) and the child's median, and their ratio.
#
#   RUNS=N    calls per benchmark (default 300)
#   COUNT=N   repetitions; the median of their medians is printed (default 3)
set -euo pipefail

RUNS=${RUNS:-300}
COUNT=${COUNT:-3}
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=$(go test -p 1 -run XXX -bench ToolCall -benchtime "${RUNS}x" -count "$COUNT" ./examples/meridian/e2e ./examples/todo/cmd/todo)
echo "$out" | grep '^Benchmark'
# median of the median-ms column of the runs of one benchmark in one package
median() {
	echo "$out" | awk -v pkg="$1" -v name="BenchmarkToolCall/$2-" '
		/^pkg: / { p = $2 }
		p ~ pkg && index($1, name) == 1 { for (i = 1; i < NF; i++) if ($(i + 1) == "median-ms") print $i }' |
		sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
for app in meridian todo; do
	in=$(median "$app" in-process)
	child=$(median "$app" exec)
	printf 'RESULT app=%s in_process_median_ms=%s target_ms=2 exec_median_ms=%s in_process/exec=%s\n' \
		"$app" "$in" "$child" "$(awk -v a="$in" -v b="$child" 'BEGIN { printf "%.2f", a / b }')"
done
