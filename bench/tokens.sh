#!/usr/bin/env bash
# bench/tokens.sh — what an agent reads of meridian and todo, in OpenAI's
# o200k_base tokens (tiktoken-go, offline; bench/cmd/o200k).
#
# For each app, as an agent calls it: the root --help, the --help of every
# command (the crawl describe replaces), describe (compact), describe
# --index, describe <one command>, describe --full, manifest (the spec's ManifestResponse), one
# command's --schema, the MCP tools/list (describe --mcp, what the server
# lists), and a 20-item list in json, jsonl and toon, whole and its data
# alone; then meta, whole, on a list and on a plain answer. Ratios are
# measured side by side in this one run. The progressive tools/list of a
# 200-command app comes from adapters/mcp's TestProgressive.
#
#   Needs Go and git. Nothing else is installed or read from the network.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
mkdir -p "$tmp/bin" "$tmp/home" "$tmp/project"
go build -o "$tmp/bin/meridian" ./examples/meridian/cmd/meridian
go build -o "$tmp/bin/claude" ./examples/meridian/cmd/fakeharness
go build -o "$tmp/bin/todo" ./examples/todo/cmd/todo
go build -o "$tmp/o200k" ./bench/cmd/o200k

count() { "$tmp/o200k" "$@"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
row() { printf '  %-44s %7s\n' "$1" "$2"; }

# meridian: an agent in space s1 of a fresh project with 20 finished runs.
(cd "$tmp/project" && git init -q)
meridian() { (cd "$tmp/project" && PATH="$tmp/bin:/usr/bin:/bin" HOME="$tmp/home" MERIDIAN_SPACE_ID=s1 "$tmp/bin/meridian" "$@" </dev/null); }
(cd "$tmp/project" && PATH="$tmp/bin:/usr/bin:/bin" HOME="$tmp/home" "$tmp/bin/meridian" run spawn -p "task 1" --wait </dev/null >/dev/null 2>&1)
for i in $(seq 2 20); do meridian run spawn -p "task $i" -m "$( ((i % 2)) && echo sonnet || echo opus)" --wait >/dev/null; done

# todo: 20 to-dos in a file of its own.
export TODO_FILE="$tmp/todo.json"
todo() { HOME="$tmp/home" "$tmp/bin/todo" "$@" </dev/null; }
titles=("renew the certificate" "call the bank" "review PR 42" "water the plants, twice" "book flights to Lisbon"
	"update the README" "fix the flaky test" "pay the invoice: €120" "write release notes" "back up the laptop")
for i in $(seq 0 19); do todo add "${titles[$((i % 10))]}" --priority "$( ((i % 3)) && echo normal || echo high)" --format json >/dev/null; done

report() { # app command-function schema-command list-command show-command
	local app=$1 run=$2 schema=$3 list=$4 show=$5
	echo "$app (o200k tokens)"
	local help crawl=0 n key
	help=$($run --help 2>&1 | count)
	row "root --help" "$help"
	for key in $($run describe --index --format json | count -commands); do
		if [[ $key == "$app" ]]; then n=$($run --help 2>&1 | count); else n=$($run ${key//./ } --help 2>&1 | count); fi
		crawl=$((crawl + n))
	done
	row "--help of every command (the crawl)" "$crawl"
	local compact full
	compact=$($run describe | count)
	full=$($run describe --full | count)
	row "describe (compact)" "$compact"
	row "describe --index" "$($run describe --index | count)"
	row "describe ${schema// /.} (one command, compact)" "$($run describe ${schema// /.} | count)"
	row "describe --full" "$full"
	row "manifest (the spec's ManifestResponse)" "$($run manifest | count)"
	row "$schema --schema" "$($run $schema --schema | count)"
	row "MCP tools/list (describe --mcp)" "$($run describe --mcp | count -part data)"
	echo "  describe/crawl $(ratio "$compact" "$crawl")   describe/full $(ratio "$compact" "$full")"
	local f
	for f in json jsonl toon; do $run $list --output $f >"$tmp/list.$f"; done
	for f in json jsonl toon; do
		row "20-item list, --output $f: whole / data" "$(count <"$tmp/list.$f") / $(count -part data <"$tmp/list.$f")"
	done
	echo "  toon/json: whole $(ratio "$(count <"$tmp/list.toon")" "$(count <"$tmp/list.json")")   data $(ratio "$(count -part data <"$tmp/list.toon")" "$(count -part data <"$tmp/list.json")")"
	row "meta of the list (json)" "$(count -part meta <"$tmp/list.json")"
	row "meta of '$show' (json)" "$($run $show --format json | count -part meta)"
	echo
}

report meridian meridian "run spawn" "run list" "models show opus"
report todo todo "add" "list" "show t1"

echo "MCP tools/list of a generated 200-command app (adapters/mcp TestProgressive):"
go test -count=1 -run 'TestProgressive$' -v ./adapters/mcp/ | sed -n 's/.*tools\/list: /  /p'
