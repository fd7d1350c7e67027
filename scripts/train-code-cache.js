#!/usr/bin/env node
// Trains V8's code caches for the CLI bundle (dist/cli/paycli.cjs.<id>.<shape>.v8-<version>.cache,
// named by bin/paycli.js: one per command trained, `root` for the root help, `common` for the rest):
// runs the commands merchants run most, one after another with PAYCLI_CODE_CACHE=write, so that each
// run deserializes what the earlier ones of its command compiled and writes the cache back with its
// own functions added; then all of them again with PAYCLI_CODE_CACHE=write-common. Everything runs in a
// temporary HOME against an emulator on a loopback port; nothing outside the package is touched.
// A cache V8 rejects later (another Node version) costs one file read and is rewritten by the next run.
// Best effort: if training cannot run here (no loopback, a slow machine), the build goes on and the
// first ordinary run writes the cache.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/paycli.js', import.meta.url));
const DIST = fileURLToPath(new URL('../dist/cli/', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'paycli-train-'));
const env = {
  PATH: process.env.PATH ?? '',
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_CACHE_HOME: join(home, '.cache'),
  XDG_DATA_HOME: join(home, '.local/share'),
};
const VA = '1179000899';
const KEY = 'SANDBOX-PAYCLI-LOCAL-0000-KEY';
const FORM =
  'trx_id=184854&sid=a&reference_id=REF1&status=berhasil&status_code=1&sub_total=102000&total=102000&amount=102000&fee=714&paid_off=101286&created_at=2025-11-11+10%3A10%3A52&expired_at=2025-11-12+10%3A10%3A52&paid_at=2025-11-11+10%3A10%3A52&settlement_status=settled&transaction_status_code=1&is_escrow=0&system_notes=&via=qris&channel=mpm&payment_no=&buyer_name=Putu&buyer_email=putu%40mail.com&buyer_phone=08123456789&additional_info=%5B%5D&url=https%3A%2F%2Fexample.com%2Fcb';

function paycli(args, extraEnv = {}, mode = 'write') {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...env, PAYCLI_CODE_CACHE: mode, ...extraEnv }, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, stdout: r.stdout };
}

try {
  // Caches of earlier builds are dead weight (their names carry another content id).
  for (const name of readdirSync(DIST)) if (/^paycli\.cjs\.(.*\.)?cache$/.test(name)) unlinkSync(join(DIST, name));
  const emulator = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', '--in-memory', '--json'], {
    env: { ...env, PAYCLI_CODE_CACHE: 'off' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const started = await new Promise((resolve, reject) => {
    emulator.once('error', reject);
    emulator.once('exit', (code) => reject(new Error(`the emulator exited with ${code}`)));
    const timer = setTimeout(() => reject(new Error('the emulator did not start within 20 s')), 20_000);
    createInterface({ input: emulator.stdout }).once('line', (line) => {
      clearTimeout(timer);
      resolve(JSON.parse(line));
    });
  }).catch((err) => {
    emulator.kill('SIGKILL');
    throw err;
  });
  try {
    const local = ['--env', 'local', '--base-url', started.baseUrl, '--va', VA];
    const keyEnv = { PAYCLI_API_KEY: KEY };
    const signed = paycli(['sign-callback', '--data', FORM, '--va', VA, '--json']);
    const signature = JSON.parse(signed.stdout).signature;
    // A callback saved to a file, the way `verify-callback FILE` is run most.
    const formFile = join(home, 'callback.form');
    writeFileSync(formFile, FORM);
    const runs = [
      [['--help']],
      [['verify-callback', formFile, '--va', VA, '--signature', signature]],
      [['verify-callback', '--data', FORM, '--va', VA, '--signature', signature]],
      [['verify-callback', '--data', FORM, '--va', VA, '--signature', '0'.repeat(64)]],
      [['verify-callback', '--data', FORM, '--va', VA, '--signature', signature, '--json']],
      [[...local, 'areas', 'province', '--no-cache'], keyEnv],
      [[...local, 'areas', 'province'], keyEnv],
      [[...local, 'areas', 'city', '51', '--json'], keyEnv],
      [
        [
          ...local,
          'pay',
          '--method',
          'va',
          '--channel',
          'bca',
          '--name',
          'Putu',
          '--phone',
          '08123456789',
          '--email',
          'putu@mail.com',
          '--item',
          'Kopi:1:10000',
          '--notify-url',
          'http://127.0.0.1:9/',
        ],
        keyEnv,
      ],
      [['areas', '--help']],
      [['pay', '--help']],
      [['whoami'], keyEnv],
    ];
    // Each command's own cache (bin/paycli.js picks it by the command named), then the `common` one
    // made by all of them, for the commands trained here without a cache of their own.
    for (const [args, extra] of runs) paycli(args, extra);
    for (const [args, extra] of runs) paycli(args, extra, 'write-common');
  } finally {
    emulator.kill('SIGTERM');
  }
} catch (err) {
  console.warn(`paycli: code cache not trained (${err.message}); the first run will write it`);
} finally {
  rmSync(home, { recursive: true, force: true });
}
