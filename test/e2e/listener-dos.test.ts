import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { signCallbackRequest } from '../../src/core/callback/build.js';
import { sampleCallbackFields } from '../../src/core/callback/sample.js';
import { EMULATOR_DEFAULT_VA as VA } from '../helpers/sandbox.js';
import { spawnPaycli } from '../helpers/spawn.js';

// Issue 13 item 7: unauthenticated senders reach `paycli listen`. A forged 1 MiB callback used to
// cost seconds of mismatch diagnosis and half a gigabyte; now the diagnosis is bounded, so while
// three clients post such bodies in a loop, valid callbacks are still answered quickly and the
// listener process stays small. Measured on the real process (bin/paycli.js, /proc/PID/status).

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

const haveProc = (() => {
  try {
    readFileSync('/proc/self/status');
    return true;
  } catch {
    return false;
  }
})();

describe('listen under forged 1 MiB callbacks', () => {
  it.skipIf(!haveProc)('answers valid callbacks within 250 ms each and stays under 200 MiB RSS', async () => {
    const l = spawnPaycli(['listen', '--port', '0', '--json', '--va', VA, '--no-persist']);
    try {
      let url = '';
      l.child.stderr!.on('data', (c: Buffer) => {
        const m = /"url":"([^"]+)"/.exec(c.toString());
        if (m) url = m[1]!;
      });
      for (let i = 0; i < 500 && !url; i++) await new Promise((r) => setTimeout(r, 10));
      expect(url, 'the listener printed its URL').not.toBe('');
      const pid = l.child.pid!;

      // Forged: a well-formed callback with a 1 MiB field (just under --max-body 1mb) and a fake signature.
      const pad = 'x'.repeat(1024 * 1024 - 2048);
      const forgedForm = `trx_id=1&status=berhasil&status_code=1&amount=1000&buyer_name=${pad}`;
      const forgedJson = JSON.stringify({ trx_id: 1, status: 'berhasil', status_code: 1, amount: '1000', buyer_name: pad });
      let stop = false;
      let forged = 0;
      const forgedAnswers = new Set<number>();
      const attackers = Array.from({ length: 3 }, async (_, n) => {
        while (!stop) {
          const json = (forged + n) % 2 === 1;
          const res = await request(url, { method: 'POST', headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded', 'x-signature': 'ab'.repeat(32) }, body: json ? forgedJson : forgedForm });
          await res.body.text();
          forgedAnswers.add(res.statusCode);
          forged++;
        }
      });
      let maxRss = rssMiB(pid);
      const sampler = setInterval(() => {
        try {
          maxRss = Math.max(maxRss, rssMiB(pid));
        } catch {
          /* exited */
        }
      }, 20);
      while (forged < 6) await new Promise((r) => setTimeout(r, 10));

      const latencies: number[] = [];
      for (let i = 0; i < 20; i++) {
        const fields = sampleCallbackFields({ status: 'berhasil', method: 'va', channel: 'bca', now: new Date(), url, trxId: 700000 + i });
        const s = signCallbackRequest(fields, VA, i % 2 === 0 ? 'form' : 'json', new Date(), String(700000 + i));
        const t0 = performance.now();
        const res = await request(url, { method: 'POST', headers: s.headers, body: s.body });
        await res.body.text();
        latencies.push(performance.now() - t0);
        expect(res.statusCode).toBe(200);
      }
      stop = true;
      await Promise.all(attackers);
      clearInterval(sampler);
      maxRss = Math.max(maxRss, rssMiB(pid));

      const forgedEvents = l.lines.filter((line) => line.includes('"trx_id":"1"'));
      console.log(`listener DoS: ${forged} forged 1 MiB posts, valid answered in max ${Math.max(...latencies).toFixed(1)} ms (median ${latencies.sort((a, b) => a - b)[10]!.toFixed(1)} ms), max RSS ${maxRss.toFixed(0)} MiB`);
      expect([...forgedAnswers]).toEqual([400]);
      expect(forgedEvents.length).toBeGreaterThan(0);
      expect(forgedEvents[0]).toContain('not diagnosed');
      expect(Math.max(...latencies)).toBeLessThan(250);
      expect(maxRss).toBeLessThan(200);
    } finally {
      l.child.kill('SIGTERM');
      await l.exited;
    }
  });
});
