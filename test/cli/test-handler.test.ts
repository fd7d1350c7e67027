import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCallback } from '../../src/core/callback/check.js';
import { parseCallbackBody } from '../../src/core/callback/parse.js';
import { run } from '../../src/cli/run.js';
import { runCli, tempHome, testContext } from '../helpers/cli.js';

const VA = '1179000899';
let home: ReturnType<typeof tempHome>;
beforeAll(() => (home = tempHome()));
afterAll(() => home.cleanup());

/** A handler in the gateway's reference style: 200 for a valid signature, 400 otherwise. */
async function handler(
  onRequest?: (n: number, req: IncomingMessage, body: string) => Promise<void> | void,
  answer?: (n: number, body: string) => [number, string] | undefined,
) {
  let n = 0;
  const bodies: { type: string; body: string }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', async () => {
      const i = ++n;
      bodies.push({ type: String(req.headers['content-type']), body });
      await onRequest?.(i, req, body);
      const forced = answer?.(i, body);
      if (forced) return void res.writeHead(forced[0]).end(forced[1]);
      const { fields } = parseCallbackBody(body, String(req.headers['content-type']));
      const ok = checkCallback(fields, String(req.headers['x-signature'] ?? ''), VA).verdict === 'valid';
      res.writeHead(ok ? 200 : 400, { 'content-type': 'application/json' }).end(ok ? '{"status":"OK"}' : 'Invalid Signature');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`,
    bodies,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe('paycli test-handler', () => {
  it('sends form, typed JSON and all-strings JSON, and reports each; every line fits 80 columns', async () => {
    const h = await handler();
    const r = await runCli(['test-handler', h.url], { env: { PAYCLI_VA: VA }, home: home.home });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // Without --order-url nothing sees what a callback did to an order: the summary says so, not "all passed".
    expect(r.stdout).not.toContain('all 53 checks passed');
    expect(r.stdout).toContain('13 of 53 checks passed; 40 could not see their effect (~):');
    expect(r.stdout).toContain('add --order-url with --create-order-url (or --trx) to see each effect');
    for (const shape of ['form', 'json', 'json-strings'])
      expect(r.stdout).toMatch(new RegExp(`^~ ${shape} +valid berhasil callback is accepted +HTTP 200$`, 'm'));
    for (const shape of ['form', 'json', 'json-strings']) expect(r.stdout).toMatch(new RegExp(`^✓ ${shape} +tampered amount is rejected +HTTP 400$`, 'm'));
    expect(r.stdout).toMatch(/^~ form +accents, emoji, \/ & \+ quotes are accepted +HTTP 200$/m);
    expect(r.stdout).toMatch(/^~ form +5 copies at once are all answered 200 +5 × HTTP 200$/m);
    for (const line of r.stdout.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
    const typed = h.bodies.find((b) => b.type === 'application/json' && /"trx_id":\d/.test(b.body));
    const strings = h.bodies.find((b) => b.type === 'application/json' && /"trx_id":"\d+"/.test(b.body));
    expect(JSON.parse(typed!.body)).toMatchObject({ status_code: 1, is_escrow: false, additional_info: [] });
    expect(JSON.parse(strings!.body)).toMatchObject({ status_code: '1', is_escrow: 'false', additional_info: [] });
    const json = await runCli(['test-handler', h.url, '--format', 'json', '--json'], { env: { PAYCLI_VA: VA }, home: home.home });
    const report = JSON.parse(json.stdout) as { total: number; effectsSeen: boolean; unobserved: string[]; checks: { format: string }[] };
    expect(report.total).toBe(37);
    expect(report.effectsSeen).toBe(false);
    expect(report.unobserved).toContain('a trx the merchant never created: not paid (json): needs --order-url (and orders: --create-order-url or --trx)');
    expect(new Set(report.checks.map((c) => c.format))).toEqual(new Set(['json', 'json-strings']));
    await h.close();
  });

  it('an unreachable handler is exit 5 with one line, not a list of failures', async () => {
    const h = await handler();
    const url = h.url;
    await h.close();
    const r = await runCli(['test-handler', url], { env: { PAYCLI_VA: VA }, home: home.home });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`cannot reach the handler at ${url.replace(/[.?]/g, '\\$&')}: connection refused`));
    expect(lines.length).toBeLessThanOrEqual(2); // the error and its hint
    const json = await runCli(['test-handler', url, '--json'], { env: { PAYCLI_VA: VA }, home: home.home });
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'ERR_NETWORK', kind: 'network', exitCode: 5 });
  });

  it("a failed check shows the handler's status and the first line of its body (control characters escaped)", async () => {
    const h = await handler(undefined, (_n, body) =>
      body.includes('pending') ? [500, '\n  db down: \u001b[31mtoo many connections\u001b[0m\nstack…'] : undefined,
    );
    const r = await runCli(['test-handler', h.url, '--format', 'form'], { env: { PAYCLI_VA: VA }, home: home.home });
    expect(r.code).toBe(6);
    expect(r.stdout).toMatch(/^✗ form +valid pending callback is accepted +HTTP 500$/m);
    expect(r.stdout).toContain('    expected HTTP 200, got HTTP 500: db down: \\x1b[31mtoo many connections');
    expect(r.stdout).not.toContain('\u001b');
    const json = await runCli(['test-handler', h.url, '--format', 'form', '--json'], { env: { PAYCLI_VA: VA }, home: home.home });
    const failed = (JSON.parse(json.stdout) as { checks: { passed: boolean; body?: string; observation: string }[] }).checks.filter((c) => !c.passed);
    expect(failed[0]).toMatchObject({ body: 'db down: \\x1b[31mtoo many connections\\x1b[0m' });
    await h.close();
  });

  it('streams each check as it finishes, with a spinner on a terminal', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const h = await handler(async (n) => {
      if (n === 3) await held; // the third check hangs until the test has seen the first two
    });
    const { ctx, out, err } = testContext({ env: { PAYCLI_VA: VA }, home: home.home, tty: true });
    const done = run(['test-handler', h.url, '--format', 'form', '--no-color'], ctx);
    for (let i = 0; i < 200 && !out().includes('valid pending callback'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(out()).toContain('valid berhasil callback is accepted');
    expect(out()).toContain('valid pending callback is accepted');
    expect(out()).not.toContain('valid expired callback');
    expect(err()).toContain('valid expired callback is accepted (form)'); // the spinner names the running check
    release();
    expect(await done).toBe(0);
    await h.close();
  });
});
