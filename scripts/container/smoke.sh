#!/usr/bin/env bash
# The container image, end to end, offline: builds the repository's Dockerfile unchanged with podman
# (base images made locally by base-image.sh when no registry is reachable), starts the container,
# waits until its own HEALTHCHECK passes, then from the host creates a payment with paycli, has the
# buyer pay it, and receives the signed callback on the host, verified. Needs root, podman, runc,
# debootstrap, and a built checkout (npm run build). test/e2e/container.test.ts runs it.
#   scripts/container/smoke.sh            (NODE_MAJOR=22 by default)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
major="${NODE_MAJOR:-22}"
paycli=(node "$root/bin/paycli.js")
tmp="$(mktemp -d "${TMPDIR:-/tmp}/paycli-smoke.XXXXXX")"
name="paycli-smoke-$$"
tag="localhost/paycli-smoke:node$major"
listener=""
previous=""
cleanup() {
  [ -n "$listener" ] && kill "$listener" 2>/dev/null || true
  podman rm -f "$name" >/dev/null 2>&1 || true
  # The previous build of this image, untagged by this one (only ours): storage does not grow.
  if [ -n "$previous" ] && [ "$previous" != "$(podman image inspect --format '{{.Id}}' "$tag" 2>/dev/null)" ]; then podman rmi "$previous" >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
say() { echo "smoke: $*" >&2; }

# podman on a machine without systemd or cgroup v2 delegation, and without registry access: runc,
# cgroupfs, no default ulimits (an unprivileged CI sandbox may refuse to raise them).
if [ -z "${CONTAINERS_CONF:-}" ]; then
  printf '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\n' >"$tmp/containers.conf"
  export CONTAINERS_CONF="$tmp/containers.conf"
fi
bash "$root/scripts/container/base-image.sh" "$major"

say "building the Dockerfile (node $major)"
previous="$(podman image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)"
podman build --format docker --network host --build-arg "NODE_VERSION=$major" -t "$tag" "$root" >"$tmp/build.log" 2>&1 || { tail -40 "$tmp/build.log" >&2; exit 1; }

user="$(podman image inspect --format '{{.Config.User}}' "$tag")"
volumes="$(podman image inspect --format '{{json .Config.Volumes}}' "$tag")"
health="$(podman image inspect --format '{{json .Config.Healthcheck}}' "$tag")"
[ "$user" = node ] || { say "image user is '$user', not node"; exit 1; }
[[ "$volumes" == *'"/data"'* ]] || { say "no /data volume: $volumes"; exit 1; }
[[ "$health" == *'sandbox'*'health'* ]] || { say "no paycli health check: $health"; exit 1; }

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
port="$(free_port)"
cb="$(free_port)"
say "starting the container on port $port"
# (podman says on stderr that it cannot start systemd timers for the health check: it runs below.)
podman run -d --name "$name" --network host -e "PAYCLI_SANDBOX_PORT=$port" "$tag" >/dev/null 2>"$tmp/run.err" || { cat "$tmp/run.err" >&2; exit 1; }
# Its own HEALTHCHECK (paycli sandbox health inside the container), run until it passes.
for i in $(seq 1 90); do
  if podman healthcheck run "$name" >/dev/null 2>&1; then break; fi
  if [ "$(podman inspect --format '{{.State.Running}}' "$name")" != true ]; then podman logs "$name" >&2; say "the container stopped"; exit 1; fi
  [ "$i" = 90 ] && { podman logs "$name" >&2; say "not healthy after 180 s"; exit 1; }
  sleep 2
done
[ "$(podman exec "$name" id -u)" != 0 ] || { say "runs as root"; exit 1; }
say "healthy; paying from the host"

# From the host, as a merchant would: aim paycli at the container, listen for the callback, pay.
eval "$("${paycli[@]}" sandbox env --sandbox-url "http://127.0.0.1:$port")"
export HOME="$tmp" XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config"
"${paycli[@]}" listen --port "$cb" --exit-after 1 --json --no-persist >"$tmp/listen.jsonl" 2>"$tmp/listen.err" &
listener=$!
"${paycli[@]}" pay --method va --channel bca --name "Putu Ayu" --phone 08123456789 --email putu@mail.com \
  --item "Kopi Kintamani:2:62500" --notify-url "http://127.0.0.1:$cb/" --json --no-input >"$tmp/pay.json"
id="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).TransactionId)' "$tmp/pay.json")"
"${paycli[@]}" sandbox pay "$id" >/dev/null
for i in $(seq 1 60); do
  kill -0 "$listener" 2>/dev/null || break
  [ "$i" = 60 ] && { cat "$tmp/listen.err" >&2; say "no callback within 60 s"; exit 1; }
  sleep 1
done
wait "$listener" || { cat "$tmp/listen.err" >&2; say "the listener failed"; exit 1; }
listener=""
grep -q '"verdict":"valid"' "$tmp/listen.jsonl" || { cat "$tmp/listen.jsonl" >&2; say "the callback was not valid"; exit 1; }
grep -q "\"trx_id\":\"\\?$id" "$tmp/listen.jsonl" || grep -q "$id" "$tmp/listen.jsonl" || { say "callback of another transaction"; exit 1; }
say "ok: built, healthy as user node, payment $id paid, its callback received and verified on the host"
