// The GitHub Action (action.yml): its steps are scripts/action/*.sh, run here as the runner runs
// them (GITHUB_OUTPUT, RUNNER_TEMP, GITHUB_ACTION_PATH, INPUT_* variables): start sets the outputs
// from the ready file and leaves the emulator running; collect gathers the ledger and every
// callback attempt for the artifact; stop ends it.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { parse } from 'yaml';
import { payVa } from '../helpers/argv.js';
import { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA } from '../helpers/sandbox.js';

const ROOT = new URL('../..', import.meta.url).pathname;
let temp: string;
let outputFile: string;
beforeAll(() => {
  temp = mkdtempSync(join(tmpdir(), 'paycli-action-'));
  outputFile = join(temp, 'github-output');
});
afterAll(async () => {
  await script('stop.sh').catch(() => undefined);
  rmSync(temp, { recursive: true, force: true });
});

function script(name: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      [join(ROOT, 'scripts/action', name)],
      {
        env: { PATH: process.env.PATH ?? '', HOME: temp, GITHUB_OUTPUT: outputFile, RUNNER_TEMP: temp, GITHUB_ACTION_PATH: ROOT, ...env },
        encoding: 'utf8',
        timeout: 120_000,
      },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function outputs(): Record<string, string> {
  const o: Record<string, string> = {};
  for (const line of readFileSync(outputFile, 'utf8').split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) o[line.slice(0, i)] = line.slice(i + 1);
  }
  return o;
}

describe('action.yml', () => {
  it('is a composite action whose steps run scripts/action/*.sh and whose outputs come from the start step', () => {
    const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
      runs: { using: string; steps: { id?: string; run?: string; uses?: string; if?: string }[] };
      outputs: Record<string, { value: string }>;
      inputs: Record<string, unknown>;
    };
    expect(action.runs.using).toBe('composite');
    const runs = action.runs.steps.filter((s) => s.run).map((s) => /scripts\/action\/([\w-]+\.sh)/.exec(s.run!)![1]!);
    expect(runs).toEqual(['start.sh', 'collect.sh']);
    for (const f of runs) expect(existsSync(join(ROOT, 'scripts/action', f))).toBe(true);
    for (const name of ['base-url', 'dashboard-url', 'va', 'api-key']) expect(action.outputs[name]!.value).toBe(`\${{ steps.start.outputs.${name} }}`);
    const upload = action.runs.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))!;
    expect(upload.if).toContain('failure()');
    expect(action.runs.steps.find((s) => s.id === 'collect')!.if).toContain('failure()');
  });
});

describe('the action scripts', () => {
  let receiver: Server;
  let hits = 0;
  beforeAll(async () => {
    // A handler that fails: the callback is retried, and every attempt must reach the artifact.
    receiver = createServer((req, res) => {
      hits++;
      req.resume();
      req.on('end', () => res.writeHead(500).end('handler broke'));
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  });
  afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

  it('start: the emulator runs in the background and the outputs say where', async () => {
    const r = await script('start.sh', { INPUT_PORT: '0', INPUT_RETRY_SCHEDULE: '50ms,50ms' });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const o = outputs();
    expect(o['base-url']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    expect(o['dashboard-url']).toBe(o['base-url']!.replace(/api$/, ''));
    expect(o.va).toBe(EMULATOR_DEFAULT_VA);
    expect(o['api-key']).toBe(EMULATOR_DEFAULT_API_KEY);
    expect(r.stdout).toContain('paycli sandbox ready at');
    // Still running after the step's shell has exited.
    const health = await request(`${o.url}/_sandbox/health`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
  });

  it('collect: the ledger and every callback attempt, for the artifact', async () => {
    const o = outputs();
    const port = (receiver.address() as { port: number }).port;
    const env = {
      PAYCLI_ENV: 'local',
      PAYCLI_BASE_URL: o['base-url']!,
      PAYCLI_SANDBOX_URL: o.url!,
      XDG_CONFIG_HOME: join(temp, 'config'),
      XDG_DATA_HOME: join(temp, 'xdg-data'),
    };
    const paycli = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          [join(ROOT, 'bin/paycli.js'), ...args],
          { env: { PATH: process.env.PATH ?? '', HOME: temp, ...env }, encoding: 'utf8' },
          (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }),
        ),
      );
    const pay = await paycli([
      ...payVa({ name: 'Putu Ayu', email: 'putu@mail.com' }),
      '--item',
      'Kopi:1:50000',
      '--notify-url',
      `http://127.0.0.1:${port}/`,
      '--json',
      '--no-input',
    ]);
    expect(pay.code, pay.stderr).toBe(0);
    const id = String((JSON.parse(pay.stdout) as { TransactionId: number }).TransactionId);
    expect((await paycli(['sandbox', 'pay', id])).code).toBe(0);
    // Every attempt made (the first and both retries) before collecting.
    for (let i = 0; i < 600 && hits < 3; i++) await new Promise((r) => setTimeout(r, 50));
    expect(hits).toBe(3);
    for (let i = 0; i < 600; i++) {
      const log = readFileSync(join(temp, 'paycli-sandbox/sandbox.ndjson'), 'utf8');
      if ((log.match(/"type":"callback"/g) ?? []).length >= 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const r = await script('collect.sh');
    expect(r.code, r.stderr).toBe(0);
    const dir = outputs().dir!;
    expect(dir).toBe(join(temp, 'paycli-sandbox/artifact'));
    const ledger = JSON.parse(readFileSync(join(dir, 'ledger.json'), 'utf8')) as {
      id: number;
      status: string;
      callbacks: { state: string; attempts: number }[];
    }[];
    expect(ledger.map((t) => [String(t.id), t.status])).toEqual([[id, 'berhasil']]);
    expect(ledger[0]!.callbacks[0]).toMatchObject({ state: 'failed', attempts: 3 });
    const attempts = readFileSync(join(dir, 'callback-attempts.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { trxId: number; attempt: number; result: string });
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(attempts.every((a) => String(a.trxId) === id && a.result.includes('500'))).toBe(true);
    // The state store, which holds each attempt's request and answer.
    expect(readdirSync(join(dir, 'data')).length).toBeGreaterThan(0);
    expect(readFileSync(join(dir, 'ready.json'), 'utf8')).toContain(o['base-url']!);
  });

  it('stop: the emulator exits', async () => {
    const o = outputs();
    expect((await script('stop.sh')).code).toBe(0);
    await expect(request(`${o.url}/_sandbox/health`)).rejects.toThrow();
  });

  it('start fails with the reason when the emulator cannot start (a port in use)', async () => {
    const port = (receiver.address() as { port: number }).port;
    const r = await script('start.sh', { INPUT_PORT: String(port) });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('exited before it was ready');
    expect(r.stderr).toContain('already in use');
  });
});
