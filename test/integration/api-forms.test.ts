import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { formSigningJson } from '../../src/core/signing/form-signature.js';
import { runCli } from '../helpers/cli.js';
import { EMULATOR_DEFAULT_API_KEY as KEY, EMULATOR_DEFAULT_VA as VA, localEnv, sandboxAndHome } from '../helpers/sandbox.js';

const f = sandboxAndHome();
const cli = (argv: string[]) => runCli(argv, { env: localEnv(f.sb, { PAYCLI_VA: VA, PAYCLI_API_KEY: KEY }), home: f.home.home });
const haveTools = ['openssl', 'sha256sum', 'curl'].every((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status === 0);

describe("paycli api signs forms and queries as the gateway's collection does", () => {
  it('the signing JSON of a form: fields in first-seen order, the last value of a repeated name, name[] a list', () => {
    expect(
      formSigningJson(
        [['q', '1']],
        [
          ['product[]', 'a,b'],
          ['x', '1'],
          ['x', '2'],
        ],
      ),
    ).toBe('{"q":"1","product":["a","b"],"x":"2"}');
  });

  it('a --form body and a GET with a query are accepted by the emulator', async () => {
    const form = await cli(['api', 'POST', 'v2/balance', '--form', '--field', `account=${VA}`, '--json']);
    expect(form.code, form.stderr).toBe(0);
    expect(JSON.parse(form.stdout).Data.Va).toBe(VA);
    const area = await cli(['api', 'GET', 'v2/cod/area?area=grogol', '--json']);
    expect(area.code, area.stderr).toBe(0);
    expect(JSON.parse(area.stdout).data.length).toBeGreaterThan(0);
  });

  it.skipIf(!haveTools)('--curl of a form request signs what the emulator checks', async () => {
    const script = await cli(['api', 'POST', 'v2/balance', '--form', '--field', `account=${VA}`, '--curl']);
    expect(script.code, script.stderr).toBe(0);
    // Asynchronously: the emulator answers from this process.
    const child = spawn('sh', ['-c', script.stdout], { env: { PATH: process.env.PATH, PAYCLI_VA: VA, PAYCLI_API_KEY: KEY }, timeout: 20_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ Status: 200, Data: { Va: VA } });
  });
});
