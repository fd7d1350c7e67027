// examples/compose/: the PHP shop (a client in the official PHP SDK's request style, and a callback
// check as the gateway's reference handler does it) really pays through the emulator and accepts
// its signed callback; a forged one is refused. The compose file wires what the shop expects.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { parse } from 'yaml';
import type { SandboxHandle } from '../../src/sandbox.js';
import { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA, sandbox } from '../helpers/sandbox.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const SHOP = join(ROOT, 'examples/compose/shop');
const havePhp = spawnable('php');
const inCi = Boolean(process.env.CI);

function spawnable(cmd: string): boolean {
  return (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, cmd)));
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

describe('examples/compose/compose.yaml', () => {
  it('builds the repository Dockerfile and gives the shop the addresses and credentials it reads', () => {
    const compose = parse(readFileSync(join(ROOT, 'examples/compose/compose.yaml'), 'utf8')) as {
      services: Record<
        string,
        { build?: string; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }>; volumes?: string[] }
      >;
    };
    expect(existsSync(join(ROOT, 'examples/compose', compose.services.paycli!.build!, 'Dockerfile'))).toBe(true);
    const env = compose.services.shop!.environment!;
    expect(env.IPAYMU_BASE_URL).toBe(`http://paycli:${compose.services.paycli!.environment!.PAYCLI_SANDBOX_PORT}/api`);
    // The emulator answers the shop's Host (its service name): test/e2e/sandbox-service.test.ts checks the setting.
    expect(compose.services.paycli!.environment!.PAYCLI_SANDBOX_ALLOW_HOSTS!.split(',')).toContain(new URL(env.IPAYMU_BASE_URL!).hostname);
    expect(env.IPAYMU_VA).toBe(EMULATOR_DEFAULT_VA);
    expect(env.IPAYMU_API_KEY).toBe(EMULATOR_DEFAULT_API_KEY);
    expect(compose.services.shop!.depends_on!.paycli!.condition).toBe('service_healthy');
    expect(compose.services.shop!.volumes).toContain('./shop:/app:ro');
  });
});

describe.skipIf(!havePhp && !inCi)(`the PHP shop against the emulator${havePhp ? '' : ' (skipped: apt-get install php-cli)'}`, () => {
  let sb: SandboxHandle;
  let php: ChildProcess;
  let shop: string;
  let dir: string;
  beforeAll(async () => {
    sb = await sandbox();
    dir = mkdtempSync(join(tmpdir(), 'paycli-shop-'));
    const port = await freePort();
    shop = `http://127.0.0.1:${port}`;
    php = spawn('php', ['-S', `127.0.0.1:${port}`, 'router.php'], {
      cwd: SHOP,
      env: {
        PATH: process.env.PATH ?? '',
        IPAYMU_BASE_URL: sb.apiUrl,
        IPAYMU_VA: EMULATOR_DEFAULT_VA,
        IPAYMU_API_KEY: EMULATOR_DEFAULT_API_KEY,
        SHOP_URL: shop,
        CALLBACK_LOG: join(dir, 'callbacks.jsonl'),
      },
      stdio: 'ignore',
    });
    for (;;) {
      try {
        await (await request(`${shop}/callbacks`)).body.dump();
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  });
  afterAll(async () => {
    php?.kill();
    await sb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a VA payment, and accepts the signed callback of the buyer paying it', async () => {
    const res = await request(`${shop}/pay`);
    const created = (await res.body.json()) as { Status: number; Data: { TransactionId: number; PaymentNo: string } };
    expect(res.statusCode, JSON.stringify(created)).toBe(200);
    expect(created.Status).toBe(200);
    const id = String(created.Data.TransactionId);
    await sb.pay(id);
    await sb.idle();
    const log = (await (await request(`${shop}/callbacks`)).body.json()) as { valid: boolean; fields: Record<string, string> }[];
    expect(log).toHaveLength(1);
    expect(log[0]!.valid).toBe(true);
    expect(log[0]!.fields.trx_id).toBe(id);
    expect(log[0]!.fields.status).toBe('berhasil');
    // The emulator saw its callback answered 200.
    const view = (await (await request(`${sb.url}/_sandbox/transactions/${id}`)).body.json()) as { transaction: { callbacks: { state: string }[] } };
    expect(view.transaction.callbacks.map((c) => c.state)).toEqual(['delivered']);
  });

  it('refuses a forged callback (400) and logs it as invalid', async () => {
    const body = 'trx_id=1&status=berhasil&status_code=1&amount=125000&sid=x&reference_id=ORDER-1';
    const res = await request(`${shop}/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-signature': 'a'.repeat(64) },
      body,
    });
    expect(res.statusCode).toBe(400);
    await res.body.dump();
    const log = (await (await request(`${shop}/callbacks`)).body.json()) as { valid: boolean }[];
    expect(log.at(-1)!.valid).toBe(false);
  });
});
