#!/usr/bin/env bash
# The action's start step: installs paycli from the action's own checkout when it is not built yet,
# starts `paycli sandbox` in the background (state and NDJSON log under $RUNNER_TEMP/paycli-sandbox),
# waits for its ready file, and writes the outputs base-url, dashboard-url, va and api-key to
# $GITHUB_OUTPUT. Inputs come as INPUT_* variables (action.yml maps them).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${GITHUB_ACTION_PATH:-$(cd "$here/../.." && pwd)}"
work="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/paycli-sandbox"
out="${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
timeout_s="${INPUT_WAIT_SECONDS:-120}"
mkdir -p "$work/data"
rm -f "$work/ready.json"

if [ ! -f "$root/dist/cli/paycli.cjs" ]; then
  echo "::group::install paycli"
  (cd "$root" && npm ci --no-audit --no-fund)
  echo "::endgroup::"
fi
paycli=(node "$root/bin/paycli.js")

args=(sandbox --json --data-dir "$work/data" --ready-file "$work/ready.json" --port "${INPUT_PORT:-4010}" --host "${INPUT_HOST:-127.0.0.1}")
[ -n "${INPUT_VA:-}" ] && args+=(--va "$INPUT_VA")
[ -n "${INPUT_API_KEY_FILE:-}" ] && args+=(--api-key-file "$INPUT_API_KEY_FILE")
[ -n "${INPUT_CALLBACK_FORMAT:-}" ] && args+=(--callback-format "$INPUT_CALLBACK_FORMAT")
[ -n "${INPUT_RETRY_SCHEDULE:-}" ] && args+=(--retry-schedule "$INPUT_RETRY_SCHEDULE")
[ -n "${INPUT_ACCOUNTS:-}" ] && args+=(--accounts "$INPUT_ACCOUNTS")

# Detached from this step's shell: the emulator outlives the step (the runner ends it with the job).
nohup setsid "${paycli[@]}" "${args[@]}" >"$work/sandbox.ndjson" 2>"$work/sandbox.err" </dev/null &
pid=$!
echo "$pid" >"$work/pid"

for _ in $(seq 1 $((timeout_s * 10))); do
  [ -f "$work/ready.json" ] && break
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "::error::paycli sandbox exited before it was ready"
    cat "$work/sandbox.err" >&2
    exit 1
  fi
  sleep 0.1
done
[ -f "$work/ready.json" ] || { echo "::error::paycli sandbox was not ready within ${timeout_s}s"; cat "$work/sandbox.err" >&2; exit 1; }

node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const lines = [["base-url", r.baseUrl], ["dashboard-url", r.dashboardUrl ?? ""], ["va", r.va], ["api-key", r.apiKey ?? ""], ["url", r.url], ["pid", process.argv[2]]];
  require("fs").appendFileSync(process.argv[3], lines.map(([k, v]) => `${k}=${v}\n`).join(""));
  console.log(`paycli sandbox ready at ${r.baseUrl} (VA ${r.va})`);
' "$work/ready.json" "$pid" "$out"
