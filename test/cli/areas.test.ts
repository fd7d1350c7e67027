import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../src/core/sandbox/server.js';
import { runCli, tempHome } from '../helpers/cli.js';
import { localEnv, sandbox } from '../helpers/sandbox.js';
import { shownKey } from '../helpers/key-mask.js';

let sb: EmulatorHandle;
let home: ReturnType<typeof tempHome>;
let env: Record<string, string>;

beforeAll(async () => {
  sb = await sandbox();
  home = tempHome();
  env = localEnv(sb);
});
afterAll(async () => {
  await sb.close();
  home.cleanup();
});

const cli = (argv: string[], extra: Record<string, string> = {}) => runCli(argv, { env: { ...env, ...extra }, home: home.home });

describe('paycli areas against the emulator', () => {
  it('lists provinces sorted by name as a table', async () => {
    const r = await cli(['areas', 'province', '--no-cache']);
    expect(r.code).toBe(0);
    // Off a terminal (captured stdout): tab-separated rows without the header, as scripts read them.
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('11\tACEH');
    expect(lines).toHaveLength(38);
    expect(r.stderr).toBe('');
    // On a terminal: the aligned table with its header.
    const tty = await runCli(['areas', 'province', '--no-color'], { env: { ...env }, home: home.home, tty: true });
    const ttyLines = tty.stdout.trim().split('\n');
    expect(ttyLines[0]).toMatch(/^CODE\s+NAME$/);
    expect(ttyLines[1]).toMatch(/^11\s+ACEH$/);
    expect(ttyLines).toHaveLength(39);
  });

  it('prints the Data array exactly with --json', async () => {
    const r = await cli(['areas', 'city', '51', '--json', '--no-cache']);
    expect(r.code).toBe(0);
    const data = JSON.parse(r.stdout);
    expect(data).toContainEqual({ code: '5171', name: 'KOTA DENPASAR' });
    expect(data.every((c: { code: string }) => c.code.startsWith('51') && c.code.length === 4)).toBe(true);
  });

  it('shows postal codes of villages, - when null', async () => {
    const r = await cli(['areas', 'village', '517101', '--no-cache']);
    expect(r.stdout.split('\n')[0]).toBe('5171011001\tSERANGAN\t-');
    const tty = await runCli(['areas', 'village', '517101', '--no-cache', '--no-color'], { env: { ...env }, home: home.home, tty: true });
    expect(tty.stdout.split('\n')[0]).toMatch(/CODE\s+NAME\s+POSTAL CODE/);
    expect(tty.stdout).toMatch(/5171011001\s+SERANGAN\s+-/);
    const json = JSON.parse((await cli(['areas', 'village', '517101', '--json', '--no-cache'])).stdout);
    expect(json[0]).toEqual({ code: '5171011001', name: 'SERANGAN', postal_code: null });
  });

  it('answers an unknown code with an empty result and exit 0', async () => {
    const r = await cli(['areas', 'district', '9999', '--no-cache']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no districts for city 9999');
    expect((await cli(['areas', 'district', '9999', '--json', '--no-cache'])).stdout.trim()).toBe('[]');
  });

  it('caches lookups on disk and serves them without the network', async () => {
    const own = await sandbox();
    const ownEnv = localEnv(own);
    const first = await runCli(['areas', 'district', '5171'], { env: ownEnv, home: home.home });
    expect(first.code).toBe(0);
    await own.close(); // from here on the network answers nothing
    const cached = await runCli(['areas', 'district', '5171'], { env: ownEnv, home: home.home });
    expect(cached.code).toBe(0);
    expect(cached.stdout).toBe(first.stdout);
    expect(cached.stderr).toContain('from cache');
    const bypass = await runCli(['areas', 'district', '5171', '--no-cache'], { env: ownEnv, home: home.home });
    expect(bypass.code).toBe(5);
    const cleared = await cli(['areas', 'cache', 'clear', '--json']);
    expect(JSON.parse(cleared.stdout).cleared).toBeGreaterThan(0);
    const again = await runCli(['areas', 'district', '5171'], { env: ownEnv, home: home.home });
    expect(again.code).toBe(5);
  });

  it('prints the signed request with --dry-run and a curl command with --curl, sending nothing', async () => {
    const dry = await cli(['areas', 'city', '51', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`GET ${sb.apiUrl}/areas/city/51`);
    expect(dry.stdout).toMatch(/signature: [0-9a-f]{64}/);
    expect(dry.stdout).toContain('# dry run: nothing was sent');
    const curl = await cli(['areas', 'province', '--curl']);
    expect(curl.stdout).toContain('"va: $PAYCLI_VA"');
    expect(curl.stdout).not.toContain('SANDBOX-PAYCLI-LOCAL');
  });

  it('maps a wrong API key (401) to exit 4 with the hint', async () => {
    const r = await cli(['areas', 'province', '--no-cache'], { PAYCLI_VA: '1179000899', PAYCLI_API_KEY: 'WRONG-KEY-0123456789' });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('unauthorized signature');
    expect(r.stderr).toContain('hint:');
    const json = await cli(['areas', 'province', '--no-cache', '--json'], { PAYCLI_VA: '4040404040', PAYCLI_API_KEY: 'WRONG-KEY-0123456789' });
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr).error).toMatchObject({
      code: 'ERR_AUTH',
      kind: 'auth',
      message: 'the gateway refused the request (401): "unauthorized credential" — sent VA …4040 to ' + new URL(sb.apiUrl).host,
    });
  });

  it('asks for credentials outside the local environment', async () => {
    const r = await runCli(['areas', 'province', '--no-color'], { env: {}, home: home.home });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/no credentials for the sandbox environment/);
  });

  it('refuses areas pick without a terminal', async () => {
    const r = await cli(['areas', 'pick']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('needs a terminal');
  });

  it('fails with exit 5 and one line when the emulator is down', async () => {
    const r = await cli(['areas', 'province', '--no-cache'], { PAYCLI_BASE_URL: 'http://127.0.0.1:9/api' });
    expect(r.code).toBe(5);
    expect(r.stderr.split('\n')[0]).toBe('error: GET http://127.0.0.1:9/api/areas/province failed: connection refused');
  });
});

describe('paycli sign request', () => {
  it('reproduces the fixture POST vector from a body on stdin', async () => {
    const body =
      '{"name":"Buyer","phone":"08123456789","email":"buyer@mail.com","amount":10000,"notifyUrl":"https://mywebsite.com/callback","referenceId":"REF123456","paymentMethod":"va","paymentChannel":"bca"}';
    const r = await runCli(['sign', 'request', '--method', 'post', '--path', 'v2/payment/direct', '--body', '-', '--json'], {
      env: { PAYCLI_VA: '0000001234567890', PAYCLI_API_KEY: 'YOUR_API_KEY' },
      stdin: body,
      home: home.home,
    });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.bodyHash).toBe('192beb157a866f8bc76efb84a1e7925836693de8081ec53b48e4788ffa398294');
    expect(out.signature).toBe('1cbce267558d9bd4ff58a5ac020e8eba7dcea93670607f18603ae17219b25a6e');
    expect(out.stringToSign).toBe(`POST:0000…7890:192beb157a866f8bc76efb84a1e7925836693de8081ec53b48e4788ffa398294:${shownKey('YOUR_API_KEY')}`);
    expect(r.stdout).not.toContain('YOUR_API_KEY');
  });
});
