#!/usr/bin/env bash
# The action's failure step: gathers what explains a failed run into one directory for the
# artifact: the ledger (every transaction with its callbacks, from the running emulator), the
# emulator's NDJSON log (every request and every callback attempt with its result), its stderr, and
# its data directory (its state store, which holds each attempt's request and answer). Prints the
# directory's path as the output `dir`.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${GITHUB_ACTION_PATH:-$(cd "$here/../.." && pwd)}"
work="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/paycli-sandbox"
dir="$work/artifact"
rm -rf "$dir" && mkdir -p "$dir"
if [ -f "$work/ready.json" ]; then
  url="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).url)' "$work/ready.json")"
  node "$root/bin/paycli.js" sandbox list --json --sandbox-url "$url" >"$dir/ledger.json" 2>"$dir/ledger.err" || echo "the emulator did not answer: the ledger is in data/" >>"$dir/ledger.err"
  cp "$work/ready.json" "$dir/"
fi
[ -f "$work/sandbox.ndjson" ] && grep '"type":"callback"' "$work/sandbox.ndjson" >"$dir/callback-attempts.ndjson" || true
for f in sandbox.ndjson sandbox.err; do [ -f "$work/$f" ] && cp "$work/$f" "$dir/"; done
[ -d "$work/data" ] && cp -r "$work/data" "$dir/data"
echo "dir=$dir" >>"${GITHUB_OUTPUT:-/dev/null}"
echo "collected $(ls "$dir" | tr '\n' ' ')into $dir"
