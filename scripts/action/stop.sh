#!/usr/bin/env bash
# Stops the emulator the start step started (its pid file), and waits until it has exited.
set -euo pipefail
work="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/paycli-sandbox"
[ -f "$work/pid" ] || exit 0
pid="$(cat "$work/pid")"
kill -TERM "$pid" 2>/dev/null || true
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
rm -f "$work/pid"
