#!/usr/bin/env bash
# examples/compose, end to end, offline: `podman-compose up --build` on the example unchanged (host
# ports from SHOP_PORT and PAYCLI_PORT), base images made locally (base-image.sh, php-image.sh) when
# no registry is reachable. Then, as its README says: the shop creates a VA payment on the emulator
# (GET /pay), the buyer pays it (`paycli sandbox pay` inside the emulator's container), the emulator
# calls the shop back by its service name, and the shop's /callbacks shows the callback, its
# signature checked by the shop's PHP. Needs root, podman, podman-compose, runc, debootstrap and
# CNI's dnsname plugin (service names). test/e2e/compose.test.ts runs it.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/paycli-compose.XXXXXX")"
project="paycli-compose-$$"
compose=(podman-compose -f "$root/examples/compose/compose.yaml" -p "$project")
say() { echo "compose: $*" >&2; }
cleanup() {
  "${compose[@]}" down -v >/dev/null 2>&1 || true
  podman network rm -f "${project}_default" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
if [ -z "${CONTAINERS_CONF:-}" ]; then
  printf '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\n' >"$tmp/containers.conf"
  export CONTAINERS_CONF="$tmp/containers.conf"
fi
bash "$root/scripts/container/base-image.sh" 22
bash "$root/scripts/container/php-image.sh"

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
export SHOP_PORT PAYCLI_PORT
SHOP_PORT="$(free_port)"
PAYCLI_PORT="$(free_port)"
# The image keeps its HEALTHCHECK only in the docker format (podman's default, OCI, drops it).
export BUILDAH_FORMAT=docker
say "podman-compose up --build (project $project; shop on $SHOP_PORT, emulator on $PAYCLI_PORT)"
"${compose[@]}" up -d --build >"$tmp/up.log" 2>&1 || { tail -40 "$tmp/up.log" >&2; exit 1; }
emulator="$(podman ps --filter "label=io.podman.compose.project=$project" --filter "label=com.docker.compose.service=paycli" --format '{{.Names}}' | head -1)"
[ -n "$emulator" ] || { podman ps -a >&2; tail -40 "$tmp/up.log" >&2; say "no emulator container"; exit 1; }

# The emulator's own HEALTHCHECK, then the shop's port.
for i in $(seq 1 90); do
  podman healthcheck run "$emulator" >/dev/null 2>&1 && break
  [ "$i" = 90 ] && { podman logs "$emulator" >&2; say "emulator not healthy after 180 s"; exit 1; }
  sleep 2
done
for i in $(seq 1 60); do
  curl -fsS "http://127.0.0.1:$SHOP_PORT/callbacks" >/dev/null 2>&1 && break
  [ "$i" = 60 ] && { "${compose[@]}" logs >&2 || true; say "shop not answering after 60 s"; exit 1; }
  sleep 1
done
say "both up; the shop creates a payment"
curl -fsS "http://127.0.0.1:$SHOP_PORT/pay" >"$tmp/pay.json" || { cat "$tmp/pay.json" >&2; say "GET /pay failed"; exit 1; }
id="$(node -e 'const a=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));if(a.Status!==200)process.exit(1);console.log(a.Data.TransactionId)' "$tmp/pay.json")" || { cat "$tmp/pay.json" >&2; say "the emulator refused the shop's payment"; exit 1; }
say "payment $id created by the shop; the buyer pays"
podman exec "$emulator" paycli sandbox pay "$id" >/dev/null
for i in $(seq 1 60); do
  curl -fsS "http://127.0.0.1:$SHOP_PORT/callbacks" >"$tmp/callbacks.json" 2>/dev/null && grep -q "\"trx_id\":\"\\?$id" "$tmp/callbacks.json" && break
  [ "$i" = 60 ] && { cat "$tmp/callbacks.json" >&2; podman logs "$emulator" >&2; say "no callback for $id at the shop within 60 s"; exit 1; }
  sleep 1
done
node -e '
const seen = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const list = Array.isArray(seen) ? seen : seen.callbacks ?? [];
const mine = list.filter((c) => String(c.fields?.trx_id) === process.argv[2]);
if (mine.length === 0 || !mine.every((c) => c.valid === true && c.fields.status === "berhasil")) { console.error(JSON.stringify(list)); process.exit(1); }
' "$tmp/callbacks.json" "$id" || { say "the shop did not see a valid paid callback for $id"; exit 1; }
say "ok: composed, the shop's payment $id paid, its callback received by the shop and its signature valid"
