import { describe, expect, it } from 'vitest';
import { payVa, REDIRECT_KAOS } from '../helpers/argv.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { shownKey } from '../helpers/key-mask.js';

// Issue 19, the items finished after the first pass.

describe('pay --redirect normalises the phone like pay', () => {
  it('+62 812-3456-789 is sent as 08123456789', async () => {
    const r = await runCli(['--env', 'local', 'pay', '--redirect', ...REDIRECT_KAOS, '--phone', '+62 812-3456-789', '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(JSON.parse(r.stdout).body)).toMatchObject({ buyerPhone: '08123456789' });
  });
});

describe('one answer to "which profile, and why"', () => {
  it('in a project whose config says profile "stage", config set writes to stage and says why; whoami reads it back', async () => {
    const { mkdirSync, writeFileSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const h = tempHome();
    try {
      const project = join(h.home, 'shop');
      mkdirSync(join(project, '.git'), { recursive: true });
      writeFileSync(join(project, '.paycli.json'), JSON.stringify({ profile: 'stage' }));
      await runCli(['config', 'init', '--profile', 'dev', '--env', 'sandbox', '--va', '1179000899', '--api-key', 'DEV-KEY-1234567890'], { home: h.home });
      await runCli(['config', 'init', '--profile', 'stage', '--env', 'sandbox', '--va', '1179000777', '--api-key', 'STAGE-KEY-1234567890'], { home: h.home });
      const set = await runCli(['config', 'set', 'va', '1179000555'], { home: h.home, cwd: project });
      expect(set.code, set.stderr).toBe(0);
      expect(set.stdout).toBe(`set va = …0555 in profile "stage" (chosen by the project config ${join(project, '.paycli.json')})\n`);
      const user = JSON.parse(readFileSync(join(h.home, '.config/paycli/config.json'), 'utf8'));
      expect(user.profiles.stage.va).toBe('1179000555');
      expect(user.profiles.dev.va).toBe('1179000899'); // the user's default profile is untouched
      const who = JSON.parse((await runCli(['whoami', '--json'], { home: h.home, cwd: project })).stdout);
      expect(who.profile).toEqual({ value: 'stage', origin: `project config ${join(project, '.paycli.json')}` });
      expect(who.va.value).toBe('…0555');
      const profiles = await runCli(['config', 'profiles', '--json'], { home: h.home, cwd: project });
      expect(JSON.parse(profiles.stdout).find((p: { active: boolean }) => p.active).name).toBe('stage');
      // A production profile chosen by the project is not changed without --profile naming it.
      writeFileSync(join(project, '.paycli.json'), JSON.stringify({ profile: 'prod' }));
      await runCli(['config', 'init', '--profile', 'prod', '--env', 'production', '--va', '2220002220', '--api-key', 'PROD-KEY-1234567890'], { home: h.home });
      const refused = await runCli(['config', 'set', 'api-key', 'NEW-KEY-1234567890'], { home: h.home, cwd: project });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `refusing to set api-key of profile "prod": it is a production profile, selected by the project config ${join(project, '.paycli.json')}`,
      );
      const named = await runCli(['config', 'set', 'api-key', 'NEW-KEY-1234567890', '--profile', 'prod'], { home: h.home, cwd: project });
      expect(named.stdout).toBe(`set api-key = ${shownKey('NEW-KEY-1234567890')} in profile "prod"\n`);
    } finally {
      h.cleanup();
    }
  });

  it('selectProfile: flag, then PAYCLI_PROFILE, then the project, then the user default, then "default"', async () => {
    const { selectProfile } = await import('../../src/core/config/resolve.js');
    const user = { defaultProfile: 'dev', profiles: {} };
    const base = { env: {}, user, userPath: '/u/config.json' };
    expect(selectProfile({ ...base, flag: 'a', env: { PAYCLI_PROFILE: 'b' }, projectProfile: 'c' })).toMatchObject({ value: 'a', source: 'flag' });
    expect(selectProfile({ ...base, env: { PAYCLI_PROFILE: 'b' }, projectProfile: 'c' })).toMatchObject({ value: 'b', source: 'env' });
    expect(selectProfile({ ...base, env: { PAYCLI_PROFILE: '' }, projectProfile: 'c', projectPath: '/p/.paycli.json' })).toEqual({
      value: 'c',
      source: 'project',
      origin: 'project config /p/.paycli.json',
    });
    expect(selectProfile(base)).toEqual({ value: 'dev', source: 'user', origin: 'user config /u/config.json' });
    expect(selectProfile({ ...base, user: { profiles: {} } })).toEqual({ value: 'default', source: 'default', origin: 'default' });
  });
});

describe("trigger fits the terminal and escapes the handler's answer", () => {
  it('a long answer wraps under the arrow; control characters are shown escaped', async () => {
    const { createServer } = await import('node:http');
    const answer = `OK ${'accepted '.repeat(12)}\u001b[2Jdone`;
    const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end(answer)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as import('node:net').AddressInfo;
    const h = tempHome();
    try {
      const r = await runCli(['trigger', '--to', `http://127.0.0.1:${port}/callback`, '--va', '1179000899', '--no-persist', '--no-color'], {
        home: h.home,
        tty: true,
      });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
      expect(lines[0]).toMatch(/^→ POST http:\/\/127\.0\.0\.1:\d+\/callback/);
      for (const line of lines.slice(1)) expect(line.startsWith('  ')).toBe(true);
      expect(r.stdout).not.toContain('\u001b');
      expect(r.stdout).toContain('\\e[2Jdone');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      h.cleanup();
    }
  });
});

describe("the gateway's words are quoted as received, paycli's are English", () => {
  it('an Indonesian field error is quoted, and control characters in it are made visible', async () => {
    const { parseEnvelope } = await import('../../src/core/http/envelope.js');
    const body = { Status: 400, Success: false, Message: 'Validasi gagal\u001b[2J', Error: { phone: ['phone tidak valid.'] } };
    let message = '';
    try {
      parseEnvelope({ status: 400, headers: {}, text: JSON.stringify(body), attempts: 1 }, 'https://sandbox.example/api/v2/payment/direct');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe('the gateway answered 400: "Validasi gagal\\e[2J" (phone: "phone tidak valid.")');
  });
});

describe('transaction fits 80 columns on a terminal', () => {
  it("the header line with a long reference wraps under its label; the gateway's text is escaped", async () => {
    const { sandbox, localEnv } = await import('../helpers/sandbox.js');
    const sb = await sandbox();
    const h = tempHome();
    try {
      const made = await runCli(
        [
          ...payVa({ name: 'Putu\u001b[2J Ayu', email: 'p@x.co' }),
          '--item',
          'Kopi:1:10000',
          '--notify-url',
          'http://127.0.0.1:9/cb',
          '--reference-id',
          'A-LONG-REFERENCE-FOR-ORDER-1-FROM-THE-SHOP-OF-KOMANG',
          '--json',
        ],
        { home: h.home, env: localEnv(sb) },
      );
      expect(made.code, made.stderr).toBe(0);
      const id = String(JSON.parse(made.stdout).TransactionId);
      const r = await runCli(['transaction', id, '--no-color'], { home: h.home, env: localEnv(sb), tty: true });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
      expect(lines[0]).toBe(`trx ${id} · pending · code 0 (Pending) · ref`);
      expect(lines[1]).toBe(`${' '.repeat(`trx ${id} · `.length)}A-LONG-REFERENCE-FOR-ORDER-1-FROM-THE-SHOP-OF-KOMANG`);
      expect(r.stdout).not.toContain('\u001b');
      expect(r.stdout).toContain('Putu\\e[2J Ayu');
    } finally {
      await sb.close();
      h.cleanup();
    }
  });
});

describe('config set reads the user config twice (values, then the profile) but warns once', () => {
  it('a 0644 config file is one warning', async () => {
    const { chmodSync } = await import('node:fs');
    const { join } = await import('node:path');
    const h = tempHome();
    try {
      await runCli(['config', 'init', '--env', 'sandbox', '--va', '1179000899', '--api-key', 'DEV-KEY-1234567890'], { home: h.home });
      chmodSync(join(h.home, '.config/paycli/config.json'), 0o644);
      const r = await runCli(['config', 'set', 'timeout', '10s'], { home: h.home });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr.match(/should be 0600/g)).toHaveLength(1);
    } finally {
      h.cleanup();
    }
  });
});
