import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('listen --json: the line written field by field', () => {
  it('is JSON.stringify of the same fields, for any strings, nulls, forwards and times', async () => {
    const { listenJsonLine } = await import('../../src/cli/commands/listen.js');
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('"', '\\', '\u0000\u001f', '\ud800', '\udc00x', '\u2028', '🌺'),
    );
    const maybe = fc.option(text, { nil: null });
    const forward = fc.record(
      {
        url: text,
        status: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }),
        ms: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
      },
      { requiredKeys: ['url', 'status', 'ms'] },
    );
    const event = fc.record({
      id: text,
      receivedAt: text,
      trx_id: maybe,
      status: maybe,
      via: maybe,
      channel: maybe,
      amount: maybe,
      verdict: fc.constantFrom('valid', 'valid-variant', 'invalid', 'malformed'),
      variant: maybe,
      reason: maybe,
      duplicate: fc.boolean(),
      answer: fc.integer({ min: 100, max: 599 }),
      stored: fc.boolean(),
      forwards: fc.array(
        fc.oneof(
          forward,
          forward.map((f) => ({ ...f, error: 'ECONNREFUSED "x"' })),
        ),
        { maxLength: 2 },
      ),
      ms: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(0), fc.constant(-0), fc.constant(12.3)),
    });
    fc.assert(
      fc.property(event, (v) => {
        const e = {
          type: 'request' as const,
          event: {
            id: v.id,
            receivedAt: v.receivedAt,
            method: 'POST',
            path: '/',
            headers: {},
            body: '',
            verdict: v.verdict,
            variant: v.variant,
            reason: v.reason,
            duplicate: v.duplicate,
            trx_id: v.trx_id,
            status: v.status,
            answer: v.answer,
          },
          summary: { trx_id: v.trx_id, status: v.status, via: v.via, channel: v.channel, amount: v.amount },
          forwards: v.forwards,
          stored: v.stored,
          ms: v.ms,
        };
        const ev = e.event;
        const want = JSON.stringify({
          id: ev.id,
          receivedAt: ev.receivedAt,
          trx_id: ev.trx_id,
          status: ev.status,
          via: e.summary.via,
          channel: e.summary.channel,
          amount: e.summary.amount,
          verdict: ev.verdict,
          variant: ev.variant,
          reason: ev.reason,
          duplicate: ev.duplicate,
          answer: ev.answer,
          stored: e.stored,
          forwards: e.forwards,
          ms: e.ms,
        });
        expect(listenJsonLine(e)).toBe(want);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('an event in the store', () => {
  it('reads back as it was written, whatever its body, headers and reason hold', async () => {
    const { EventStore } = await import('../../src/core/listener/event-store.js');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'paycli-store-'));
    const store = new EventStore(join(dir, 'events.db'));
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('', '"body":""', '{"body":""}', 'a=1&b=%22', 'x"y', 'x\\y', '\n', '\u0000', '🌺', 'Ñ'),
    );
    const maybe = fc.option(text, { nil: null });
    let n = 0;
    const event = fc.record({
      receivedAt: text,
      method: fc.constantFrom('POST', 'GET'),
      path: text,
      headers: fc.dictionary(fc.oneof(text, fc.constant('body')), fc.oneof(text, fc.constant(''))),
      body: fc.oneof(text, fc.constant('trx_id=1&status=berhasil&url=https%3A%2F%2Fx')),
      verdict: fc.constantFrom('valid' as const, 'valid-variant' as const, 'invalid' as const, 'malformed' as const),
      variant: maybe,
      reason: maybe,
      duplicate: fc.boolean(),
      trx_id: maybe,
      status: maybe,
      answer: fc.integer({ min: 100, max: 599 }),
      source: fc.constantFrom('listen' as const, 'trigger' as const),
    });
    try {
      await fc.assert(
        fc.asyncProperty(event, async (e) => {
          const stored = { id: `evt_${n++}`, ...e };
          // Lone surrogates cannot be UTF-8: JSON.stringify escapes them in headers, SQLite's text replaces them in the body.
          const wellFormed = (x: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(x);
          fc.pre(
            [stored.body, stored.path, stored.receivedAt, stored.reason ?? '', stored.variant ?? '', stored.trx_id ?? '', stored.status ?? ''].every(
              wellFormed,
            ),
          );
          await store.append(stored);
          expect(await store.find(stored.id)).toEqual(JSON.parse(JSON.stringify(stored)));
        }),
        { numRuns: 300 },
      );
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
