import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

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
