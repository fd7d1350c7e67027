#!/usr/bin/env bash
# Makes a local stand-in for the official php:8.2-cli image that examples/compose/compose.yaml runs
# the shop in, for machines that reach no container registry (only Debian's packages): a Debian
# bookworm rootfs from debootstrap with Debian's PHP 8.2 CLI (the same PHP minor as the official
# image's tag), `php` on PATH as in the official image. Saved as a tarball in the cache directory and
# imported from there next time.
#   scripts/container/php-image.sh            (as root; podman, debootstrap)
set -euo pipefail
cache="${PAYCLI_CI_CACHE:-$HOME/.cache/paycli-ci}/images"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
image="php:8.2-cli"
tarball="$cache/php-8.2-cli.tar"
mkdir -p "$cache"
# One maker at a time (see base-image.sh).
exec 9>"$cache/.php.lock"
flock 9
podman image exists "$image" && exit 0
changes=(--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' --change 'CMD ["php", "-a"]')
if [ ! -f "$tarball" ]; then
  work="$(mktemp -d "${TMPDIR:-/tmp}/paycli-php.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  echo "php image: debootstrap bookworm (minbase) with php8.2-cli from $mirror" >&2
  debootstrap --variant=minbase --include=php8.2-cli bookworm "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  chroot "$work/root" php -r 'fwrite(STDERR, "php image: PHP " . PHP_VERSION . " runs in the rootfs\n");'
  rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"*
  tar --numeric-owner -C "$work/root" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
fi
podman import "${changes[@]}" "$tarball" "$image" >/dev/null
echo "php image: $image ready (tarball in $cache)" >&2
