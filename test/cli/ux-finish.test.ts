import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// Issue 19, the items finished after the first pass.

describe('item 9: pay --redirect normalises the phone like pay', () => {
  it('+62 812-3456-789 is sent as 08123456789', async () => {
    const r = await runCli(['--env', 'local', 'pay', '--redirect', '--item', 'Kaos:1:1000', '--notify-url', 'http://127.0.0.1:9/cb', '--return-url', 'http://127.0.0.1:9/ok', '--phone', '+62 812-3456-789', '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(JSON.parse(r.stdout).body)).toMatchObject({ buyerPhone: '08123456789' });
  });
});
