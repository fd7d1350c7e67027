import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { unexportedClasses } from '../helpers/dts-classes.js';

const exec = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;

describe('the package as a library', () => {
  it('exports verifyCallback and friends from "paycli" and startSandbox from "paycli/sandbox"', async () => {
    const script = `
      import { checkCallback, parseCallbackBody, verifyCallback, signCallback } from 'paycli';
      import { startSandbox } from 'paycli/sandbox';
      import { readFileSync } from 'node:fs';
      const body = readFileSync(${JSON.stringify(new URL('../fixtures/callback-qris-sandbox.form', import.meta.url).pathname)}, 'utf8');
      const { fields } = parseCallbackBody(body, 'application/x-www-form-urlencoded');
      const sig = 'c9594cc8c9f5811ecf22422eed1c8071f7837211f58956f616658a904d94f024';
      const sb = await startSandbox({ port: 0 });
      console.log(JSON.stringify({ check: checkCallback(fields, sig, '1179000899').verdict, verify: verifyCallback({ fields, signature: sig, va: '1179000899' }).valid, sign: signCallback(fields, '1179000899') === sig, url: sb.apiUrl.startsWith('http://127.0.0.1:') }));
      await sb.close();
    `;
    // Resolve "paycli" through the package's own exports, as a merchant's project would.
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual({ check: 'valid', verify: true, sign: true, url: true });
  });
});

describe("paycli/sandbox: the handle's state is the ledger, read-only", () => {
  it('reads what the emulator stored, live, and offers no write and no SQLite handle', async () => {
    const script = `
      import { startSandbox } from 'paycli/sandbox';
      const sb = await startSandbox({ port: 0 });
      const va = sb.accounts[0].va;
      const r = await sb.merchant.createRedirect(va, { product: ['A'], qty: ['1'], price: ['10000'], notifyUrl: 'http://127.0.0.1:9/cb' });
      const c = await sb.merchant.choose(r.session, 'cstore', 'indomaret');
      const before = sb.state.get(c.txn.id).status;
      await sb.pay(String(c.txn.id));
      const s = sb.state;
      let threw = '';
      try { s.get = () => undefined; } catch (err) { threw = err.constructor.name; }
      console.log(JSON.stringify({
        before, after: s.get(c.txn.id).status, found: s.find(String(c.txn.id))?.id === c.txn.id,
        count: s.count(), paid: s.count({ status: 'berhasil' }), deliveries: s.deliveriesOf(c.txn.id).length,
        session: s.session(r.session.sid)?.sid === r.session.sid, bySession: s.sessionTransaction(r.session.sid, va)?.id === c.txn.id,
        path: s.path, threw, frozen: Object.isFrozen(s),
        internals: ['db', 'write', 'addTransaction', 'transition', 'reset', 'bulk', 'close'].filter((k) => k in s),
      }));
      await sb.close();
    `;
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual({
      before: 'pending',
      after: 'berhasil',
      found: true,
      count: 1,
      paid: 1,
      deliveries: 1,
      session: true,
      bySession: true,
      path: ':memory:',
      threw: 'TypeError',
      frozen: true,
      internals: [],
    });
  });
});

describe('paycli/callback: a callback verifier a merchant can deploy alone', () => {
  it('the built entry imports nothing but node:crypto (one file, no other module of paycli or of npm)', () => {
    const built = readFileSync(join(ROOT, 'dist/callback.js'), 'utf8');
    const specifiers = new Set<string>();
    for (const m of built.matchAll(
      /\bimport\s*(?:[\w${},*\s]+?\s*from\s*)?["']([^"']+)["']|\bexport\s*[\w${},*\s]*?\s*from\s*["']([^"']+)["']|\brequire\(\s*["']([^"']+)["']\s*\)|\bimport\(\s*["']([^"']+)["']\s*\)/g,
    )) {
      specifiers.add(m[1] ?? m[2] ?? m[3] ?? m[4]!);
    }
    expect([...specifiers]).toEqual(['node:crypto']);
    // No import with a computed specifier either.
    expect(built).not.toMatch(/\bimport\(\s*[^"'\s]/);
    expect(built).not.toMatch(/\brequire\(\s*[^"'\s]/);
  });

  it('verifies a callback from {rawBody, headers, va}, resolved as "paycli/callback" as a merchant\'s project resolves it', async () => {
    const script = `
      import { verifyCallbackRequest, MissingVaError, OK_ANSWER } from 'paycli/callback';
      import { readFileSync } from 'node:fs';
      const body = readFileSync(${JSON.stringify(join(ROOT, 'test/fixtures/callback-qris-sandbox.form'))});
      const sig = 'c9594cc8c9f5811ecf22422eed1c8071f7837211f58956f616658a904d94f024';
      const headers = { 'content-type': 'application/x-www-form-urlencoded', 'x-signature': sig };
      const ok = verifyCallbackRequest({ rawBody: body, headers, va: '1179000899' });
      const text = verifyCallbackRequest({ rawBody: body.toString('utf8'), headers: { 'Content-Type': headers['content-type'], 'X-Signature': sig.toUpperCase() }, va: '1179000899' });
      const forged = verifyCallbackRequest({ rawBody: body.toString('utf8').replace('amount=', 'amount=9'), headers, va: '1179000899' });
      const unsigned = verifyCallbackRequest({ rawBody: body, headers: {}, va: '1179000899' });
      const malformed = verifyCallbackRequest({ rawBody: 'a=%zz', headers, va: '1179000899' });
      let missing = '';
      try { verifyCallbackRequest({ rawBody: body, headers, va: '' }); } catch (err) { missing = err instanceof MissingVaError ? err.code : 'other'; }
      console.log(JSON.stringify({ ok: [ok.verdict, ok.ok, ok.fields.reference_id, ok.summary.status], text: text.verdict, forged: [forged.verdict, forged.ok], unsigned: unsigned.reason, malformed: malformed.verdict, missing, answer: OK_ANSWER }));
    `;
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    const r = JSON.parse(stdout);
    expect(r.ok).toEqual(['valid', true, expect.any(String), 'berhasil']);
    expect(r).toMatchObject({
      text: 'valid',
      forged: ['invalid', false],
      unsigned: 'missing X-Signature header',
      malformed: 'malformed',
      missing: 'ERR_MISSING_VA',
      answer: '{"status":"OK"}',
    });
  });

  it('exported constants of every entry are frozen: a consumer cannot change a later signature', async () => {
    const script = `
      import * as main from 'paycli';
      import * as sandbox from 'paycli/sandbox';
      import * as callback from 'paycli/callback';
      const notFrozen = [];
      const walk = (v, path) => {
        if (v === null || typeof v !== 'object') return;
        if (!Object.isFrozen(v)) notFrozen.push(path);
        for (const k of Reflect.ownKeys(v)) walk(v[k], path + '.' + String(k));
      };
      for (const [entry, mod] of Object.entries({ main, sandbox, callback })) {
        for (const [name, v] of Object.entries(mod)) if (typeof v === 'object') walk(v, entry + '.' + name);
      }
      const fields = { trx_id: '1', status: 'berhasil', url: 'https://shop.example/cb' };
      const before = main.signCallback(fields, '1179000899');
      let threw = '';
      try { main.GATEWAY_CANONICAL.json.escapeSlash = false; } catch (err) { threw = err.constructor.name; }
      console.log(JSON.stringify({ notFrozen, threw, same: main.signCallback(fields, '1179000899') === before }));
    `;
    const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual({ notFrozen: [], threw: 'TypeError', same: true });
  });

  it('no exported type of an entry refers to a class the entry does not export', () => {
    // The listener's store is reached through the CallbackEventStore interface (ListenerOptions.store)
    // and the emulator's ledger through SandboxLedger (SandboxHandle.state, transactionView,
    // MerchantApi): no class stays pending.
    const pending = new Set<string>();
    for (const entry of ['index', 'sandbox', 'callback']) {
      const problems = unexportedClasses(join(ROOT, `dist/${entry}.d.ts`)).filter((p) => !pending.has(p.split(' ')[0]!));
      expect(problems, entry).toEqual([]);
    }
    expect(unexportedClasses(join(ROOT, 'dist/callback.d.ts'))).toEqual([]);
  });
});
