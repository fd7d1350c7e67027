import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempHome } from '../helpers/cli.js';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';

const FIXTURE_PATH = new URL('../fixtures/callback-qris-sandbox.form', import.meta.url).pathname;
const FIXTURE = readFileSync(FIXTURE_PATH, 'utf8');
const SIG = 'c9594cc8c9f5811ecf22422eed1c8071f7837211f58956f616658a904d94f024';
const VA = '1179000899';

let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

const cli = (argv: string[], o: { stdin?: string; env?: Record<string, string> } = {}) => runCli(argv, { home: home.home, ...o });

describe('paycli verify-callback', () => {
  it('accepts the real capture (exit 0)', async () => {
    const r = await cli(['verify-callback', FIXTURE_PATH, '--va', VA, '--signature', SIG]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('✓ valid signature');
  });

  it('explains a mismatch and exits 6', async () => {
    const r = await cli(['verify-callback', FIXTURE_PATH, '--va', VA, '--signature', '00721607209ced43b06cd8f24be4d8b172685bf10be9830fa4c75ddbd949de30']);
    expect(r.code).toBe(6);
    expect(r.stdout).toContain('✗ invalid signature');
    expect(r.stdout).toContain('"/" was not escaped');
  });

  it('prints the documented JSON shape', async () => {
    const r = await cli([
      'verify-callback',
      FIXTURE_PATH,
      '--va',
      VA,
      '--signature',
      '360eeb4b0cf1ae77c0ae95d190417f93188f5c5f6a8091423fb994d67955d5ba',
      '--json',
      '--show-canonical',
    ]);
    expect(r.code).toBe(6);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({
      valid: false,
      verdict: 'invalid',
      received: '360eeb4b0cf1ae77c0ae95d190417f93188f5c5f6a8091423fb994d67955d5ba',
      expected: SIG,
      variant: 'amounts-as-integers+escrow-as-number',
    });
    expect(doc.diagnosis[0]).toMatch(/integers/);
    expect(doc.canonical).toMatch(/^\{"additional_info":\[\]/);
  });

  it('reads a raw HTTP capture from stdin and takes X-Signature from it', async () => {
    const capture = `POST /cb HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\nX-Signature: ${SIG}\r\n\r\n${FIXTURE}`;
    const r = await cli(['verify-callback', '-', '--va', VA], { stdin: capture });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('the X-Signature header');
  });

  it('takes the VA from the environment and --data inline', async () => {
    const r = await cli(['verify-callback', '--data', FIXTURE, '--signature', SIG], { env: { PAYCLI_VA: VA } });
    expect(r.code).toBe(0);
  });

  it('names the API key as the mistake when it was used as the secret', async () => {
    const key = 'SANDBOX-MY-API-KEY-12345678';
    const fields = sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url: 'https://shop.example/cb' });
    const signed = signCallbackRequest(fields, key, 'json', new Date(), '1');
    const r = await cli(['verify-callback', '--data', signed.body, '--signature', signed.signature, '--json'], { env: { PAYCLI_VA: VA, PAYCLI_API_KEY: key } });
    expect(r.code).toBe(6);
    expect(JSON.parse(r.stdout).diagnosis[0]).toMatch(/API key as the secret/);
    expect(r.stdout + r.stderr).not.toContain(key);
  });

  it('exit 4 without a VA, exit 2 for malformed input or no signature', async () => {
    expect((await cli(['verify-callback', FIXTURE_PATH, '--signature', SIG])).code).toBe(4);
    const bad = await cli(['verify-callback', '--data', 'a=%zz', '--va', VA, '--signature', SIG]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid percent-encoding');
    const nosig = await cli(['verify-callback', FIXTURE_PATH, '--va', VA]);
    expect(nosig.code).toBe(2);
    expect(nosig.stderr).toContain('no signature to check');
    const missing = await cli(['verify-callback', '/nonexistent/file', '--va', VA, '--signature', SIG]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');
  });

  it('verifies a JSONL batch and lists the failures', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 50; i++) {
      const fields = sampleCallbackFields({ status: 'berhasil', method: 'qris', channel: 'mpm', now: new Date(), url: 'https://shop.example/cb' });
      const s = signCallbackRequest(fields, VA, i % 2 ? 'json' : 'form', new Date(), String(i));
      lines.push(JSON.stringify({ headers: s.headers, body: i === 7 ? s.body.replace('berhasil', 'pending') : s.body }));
    }
    lines.push('{not json');
    lines.push('');
    const file = join(home.home, 'captures.jsonl');
    writeFileSync(file, lines.join('\n'));
    const r = await cli(['verify-callback', '--jsonl', file, '--va', VA, '--json']);
    expect(r.code).toBe(6);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ total: 51, valid: 49, invalid: 1, malformed: 1 });
    expect(summary.failures.map((f: { line: number }) => f.line)).toEqual([8, 51]);
    const human = await cli(['verify-callback', '--jsonl', file, '--va', VA]);
    expect(human.stdout).toContain('51 captures: 49 valid, 1 invalid, 1 malformed');
  });
});

describe('paycli sign-callback', () => {
  it('prints the X-Signature of the capture and the canonical JSON', async () => {
    expect((await cli(['sign-callback', FIXTURE_PATH, '--va', VA])).stdout).toBe(SIG + '\n');
    const json = JSON.parse((await cli(['sign-callback', FIXTURE_PATH, '--va', VA, '--show-canonical', '--json'])).stdout);
    expect(json.signature).toBe(SIG);
    expect(json.canonical).toContain('"trx_id":184854');
  });

  it('prints a curl command that posts the exact body with the signature', async () => {
    const r = await cli(['sign-callback', FIXTURE_PATH, '--va', VA, '--curl', 'http://127.0.0.1:3000/cb']);
    expect(r.stdout).toContain(`-H 'X-Signature: ${SIG}'`);
    expect(r.stdout).toContain(`--data-binary '${FIXTURE}'`);
    expect(r.stdout).toContain('Content-Type: application/x-www-form-urlencoded');
  });
});
