#!/usr/bin/env bash
# bench/adopt.sh — what adopting Duet costs an app nobody has ported yet.
#
# Builds examples/tally (cobra) and examples/jot (urfave/cli v3) twice — as
# the apps were (-tags bare) and wrapped with Duet in one line — and times
# typical commands of each pair as whole processes, interleaved, with
# bench/cmd/procbench: for a script (stdin and stdout /dev/null) and for a
# person (stdin, stdout and stderr a pseudo-terminal). Both builds of a pair
# run the same code but for the one line; the ratio of medians wrapped/bare
# is what Duet adds to a start.
#
#   RUNS=N    runs of each binary per comparison (default 300)
#   TARGET=R  the highest acceptable ratio of medians wrapped/bare (default 1.05)
#   STRICT=1  exit 1 when a ratio is over the target
#
# Ratios are reported, not asserted (a shared machine is noisy): without
# STRICT=1 the script exits non-zero only when something failed to build or run.
set -euo pipefail

RUNS=${RUNS:-300}
TARGET=${TARGET:-1.05}
STRICT=${STRICT:-0}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"

echo "building into $tmp/bin"
for app in tally jot; do
	go build -o "$tmp/bin/$app" ./examples/$app/cmd/$app
	go build -tags bare -o "$tmp/bin/$app-bare" ./examples/$app/cmd/$app
done
go build -o "$tmp/bin/procbench" ./bench/cmd/procbench
# Rewritten with write(2), as bench/run.sh explains: the ratio compares
# code, not page-cache state.
for b in tally tally-bare jot jot-bare; do
	cp "$tmp/bin/$b" "$tmp/bin/$b.copy"
	mv "$tmp/bin/$b.copy" "$tmp/bin/$b"
done
# A second copy of a bare build, timed against the first: the noise floor,
# what the same program measures against itself on this machine.
cp "$tmp/bin/tally-bare" "$tmp/bin/tally-same"

cd "$tmp"
printf 'one two two\nthree Two\n' >t.txt
export JOT_FILE="$tmp/notes" HOME="$tmp"
for i in $(seq 1 50); do
	printf '%d\t0\tbench\tnote number %d\n' "$i" "$i"
done >"$JOT_FILE"
unset CLAUDECODE CODEX_CI CODEX_THREAD_ID GEMINI_CLI OPENCODE AI_AGENT

echo "go: $(go version)   cpus: $(nproc)   runs: $RUNS   target ratio: <= $TARGET"
echo

over=0
compare() {
	local name=$1 app=$2
	shift 2
	local out ratio
	out=$("$tmp/bin/procbench" -runs "$RUNS" -name "$name" -a "$tmp/bin/$app" -b "$tmp/bin/${app%-same}-bare" "$@")
	echo "$out"
	ratio=$(sed -n 's/^RESULT .* ratio=\([0-9.]*\) .*/\1/p' <<<"$out")
	if [[ $app == *-same ]]; then
		echo "REPORT $name: ratio $ratio (the same program against itself)"
	elif awk -v r="$ratio" -v t="$TARGET" 'BEGIN { exit !(r <= t) }'; then
		echo "PASS $name: ratio $ratio <= $TARGET"
	else
		echo "FAIL $name: ratio $ratio > $TARGET"
		over=1
	fi
	echo
}

compare noise-floor tally-same -- --help
for mode in script person; do
	tty=()
	[[ $mode == person ]] && tty=(-tty)
	compare "$mode-tally-count" tally "${tty[@]}" -- count t.txt
	compare "$mode-tally-help" tally "${tty[@]}" -- --help
	compare "$mode-jot-list" jot "${tty[@]}" -- list
	compare "$mode-jot-help" jot "${tty[@]}" -- --help
done

if [[ $over -ne 0 && $STRICT == 1 ]]; then
	exit 1
fi
exit 0
