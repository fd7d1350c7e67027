import { describe, expect, it } from 'vitest';
import { parseEnvelope } from '../../src/core/http/envelope.js';
import { AuthError, GatewayError, NetworkError } from '../../src/core/errors.js';

const res = (status: number, text: string, ct = 'application/json') => ({ status, text, headers: { 'content-type': ct }, attempts: 1 });

describe('envelope parsing (docs/gateway.md, "Answers")', () => {
  it('accepts the envelope with any key case and a missing Success', () => {
    expect(parseEnvelope(res(200, '{"status":200,"message":"ok","data":[1]}'), 'u').Data).toEqual([1]);
    expect(parseEnvelope(res(200, '{"Status":200,"Success":true,"Message":"Success","Data":[]}'), 'u').Success).toBe(true);
  });

  it('maps 401 messages to auth errors with hints', () => {
    const e = (m: string) => {
      try {
        parseEnvelope(res(401, JSON.stringify({ Status: 401, Success: false, Message: m, Data: null })), 'u');
      } catch (err) {
        return err as AuthError;
      }
      throw new Error('no error');
    };
    expect(e('unauthorized signature')).toBeInstanceOf(AuthError);
    expect(e('unauthorized signature').hint).toMatch(/API key/);
    expect(e('unauthorized credential').hint).toMatch(/unknown or inactive/);
    expect(e('invalid header param - va is required').hint).toMatch(/VA/);
  });

  it('lists per-field errors of a 400', () => {
    try {
      parseEnvelope(res(400, '{"Status":400,"Success":false,"Message":"error - invalid request","Error":{"name":["name wajib diisi."]},"Data":null}'), 'u');
      throw new Error('no error');
    } catch (err) {
      expect(err).toBeInstanceOf(GatewayError);
      expect((err as Error).message).toBe('the gateway answered 400: "error - invalid request" (name: "name wajib diisi.")');
    }
    expect(() => parseEnvelope(res(200, '{"Status":200,"Success":false,"Message":"saldo kurang"}'), 'u')).toThrow(GatewayError);
  });

  it('treats HTML, empty and truncated bodies as malformed responses (network)', () => {
    expect(() => parseEnvelope(res(502, '<html>Bad gateway</html>', 'text/html'), 'http://x/api')).toThrow(/an HTML page/);
    expect(() => parseEnvelope(res(200, ''), 'u')).toThrow(NetworkError);
    expect(() => parseEnvelope(res(200, '{"Status":200,"Da'), 'u')).toThrow(/possibly truncated/);
    expect(() => parseEnvelope(res(200, '[1]'), 'u')).toThrow(/not an envelope/);
  });
});
