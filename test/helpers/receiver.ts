import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  rawHeaders: string[];
  body: Buffer;
}

/** A loopback HTTP server that records requests and answers with a scripted status sequence. */
export async function receiver(
  statuses: number[] = [200],
  body = 'ok',
): Promise<{ url: string; received: Received[]; close: () => Promise<void>; waitFor: (n: number, ms?: number) => Promise<void> }> {
  const received: Received[] = [];
  let i = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) });
      const status = statuses[Math.min(i++, statuses.length - 1)]!;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())).then(() => undefined),
    async waitFor(n, ms = 5000) {
      const until = Date.now() + ms;
      while (received.length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      if (received.length < n) throw new Error(`expected ${n} requests, got ${received.length}`);
    },
  };
}
