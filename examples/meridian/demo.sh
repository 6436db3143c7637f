#!/usr/bin/env bash
# examples/meridian/demo.sh — Meridian on a real workload, with nothing
# installed but Go and no network.
#
# It builds meridian, and cmd/fakeharness installed as `claude`: a stand-in
# for Claude Code that parses Claude's real command line and prints its real
# stream-json events (there is no model behind it; its report says so). In a
# new project under a temporary directory, with its own HOME, it then runs
# what a person and an agent would: init, a run through "Claude" that waits
# for the report, the same run list and stats as an agent sees them (JSON),
# and a run through Codex, which is not installed — refused before anything
# is written, with the command that installs it.
#
# At a terminal meridian answers in text; piped, in JSON. The project is left
# in place for a look around; its path is printed at the end.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/meridian-demo.XXXXXX")
mkdir -p "$work/bin" "$work/home" "$work/project"

echo "== building meridian and the stand-in claude into $work/bin"
(cd "$repo" && go build -o "$work/bin/meridian" ./examples/meridian/cmd/meridian &&
	go build -o "$work/bin/claude" ./examples/meridian/cmd/fakeharness)

# Only the demo's own programs are on PATH: a real codex on this machine
# must not turn the last step into a real run.
meridian() { (cd "$work/project" && PATH="$work/bin" HOME="$work/home" "$work/bin/meridian" "$@"); }
step() { printf '\n== %s\n' "$*"; }

step "meridian init"
meridian init

step 'meridian run spawn -p "Summarise what this project is for" -m opus --wait'
meridian run spawn -p "Summarise what this project is for" -m opus --wait

step "MERIDIAN_SPACE_ID=s1 meridian run list     (an agent: one JSON envelope)"
MERIDIAN_SPACE_ID=s1 meridian run list
step "MERIDIAN_SPACE_ID=s1 meridian run stats"
MERIDIAN_SPACE_ID=s1 meridian run stats

step 'meridian run spawn -p "Review the change" -m gpt-5.3-codex     (Codex is not installed)'
status=0
meridian run spawn -p "Review the change" -m gpt-5.3-codex || status=$?
echo "(exit status $status: 4 is PRECONDITION — nothing was written)"

step "the state, as files"
(cd "$work/project" && find .meridian -type f | sort)
echo
echo "The project is in $work/project; remove $work when done."
[[ $status -eq 4 ]]
