import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { SandboxAccount } from '../../src/core/sandbox/accounts.js';
import { authenticate } from '../../src/core/sandbox/authenticate.js';
import { signRequest } from '../../src/core/signing/request-signature.js';

const account: SandboxAccount = { va: '1179000899', apiKey: 'QbGcoO0Qds9sQFDmY0MWg1Tq.xtuh1', active: true, name: 'Shop', callbackFormat: 'form' };
const accounts = new Map([[account.va, account]]);
const body = Buffer.from('{"product":["Kopi"]}');

function request(headers: Record<string, string>, method = 'POST'): IncomingMessage {
  return { method, headers } as unknown as IncomingMessage;
}

describe('the emulator authenticates like the gateway (sandbox/authenticate.ts)', () => {
  it('accepts the request signature of the VA and key, for that method and those body bytes', () => {
    const { signature } = signRequest({ method: 'POST', va: account.va, apiKey: account.apiKey!, body });
    expect(authenticate(request({ va: account.va, signature }), body, accounts)).toBe(account);
    expect(authenticate(request({ va: account.va, signature }, 'GET'), body, accounts)).toBe('unauthorized signature');
    expect(authenticate(request({ va: account.va, signature }), Buffer.from('{}'), accounts)).toBe('unauthorized signature');
  });

  it("answers with the gateway's messages for missing headers, unknown or inactive merchants and the bare key", () => {
    expect(authenticate(request({ signature: 'x' }), body, accounts)).toBe('invalid header param - va is required');
    expect(authenticate(request({ va: account.va }), body, accounts)).toBe('invalid header param - signature is required');
    expect(authenticate(request({ va: '0000', signature: 'x' }), body, accounts)).toBe('unauthorized credential');
    const inactive = new Map([[account.va, { ...account, active: false }]]);
    expect(authenticate(request({ va: account.va, signature: 'x' }), body, inactive)).toBe('unauthorized credential');
    expect(authenticate(request({ va: account.va, signature: account.apiKey! }), body, accounts)).toBe('unauthorized signature');
  });
});
