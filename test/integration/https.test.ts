import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { runPaycli } from '../helpers/spawn.js';

// The real gateway is HTTPS: API calls go through node:https. A loopback server with a certificate
// made here by openssl stands in for it (and for a TLS-intercepting proxy's certificate).
let dir: string;
let server: Server;
let base: string;
let lastSignature: string | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'paycli-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
    lastSignature = req.headers.signature as string | undefined;
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        Status: 200,
        Success: true,
        Message: 'success',
        Data: [
          { code: '51', name: 'BALI' },
          { code: '11', name: 'ACEH' },
        ],
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe('HTTPS', () => {
  it('refuses a certificate it cannot verify: exit 5, one line naming the TLS cause, and a hint', async () => {
    const r = await runCli(['--env', 'local', '--base-url', base, '--va', '1179000899', 'areas', 'province', '--no-cache'], { env: { PAYCLI_API_KEY: 'k' } });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(
      /^error: GET https:\/\/127\.0\.0\.1:\d+\/api\/areas\/province failed: TLS failed \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\)$/m,
    );
    expect(r.stderr).toContain('NODE_EXTRA_CA_CERTS');
  });

  it('trusts the certificate through NODE_EXTRA_CA_CERTS and sends the signed request', async () => {
    const r = await runPaycli(['--env', 'local', '--base-url', base, '--va', '1179000899', 'areas', 'province', '--no-cache', '--json'], {
      PAYCLI_API_KEY: 'k',
      NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem'),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { code: '51', name: 'BALI' },
      { code: '11', name: 'ACEH' },
    ]);
    expect(lastSignature).toMatch(/^[0-9a-f]{64}$/);
  });
});
