import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseCallbackBody } from '../callback/parse.js';
import { readBody } from '../http/read-body.js';

/**
 * A scenario's stand-in merchant handlers: loopback servers that answer callbacks with the file's
 * statuses in turn (`answers: [500, 200]`: a first delivery that fails) and tell what they received
 * at `GET /_received` ({count, last}: the last callback's fields), for `expect_http` probes.
 */
export interface Receivers {
  urls: Record<string, string>;
  close(): Promise<void>;
}

export async function startReceivers(conf: Record<string, { answers: number[] }>): Promise<Receivers> {
  const servers: Server[] = [];
  const urls: Record<string, string> = {};
  try {
    for (const [name, { answers }] of Object.entries(conf)) {
      let n = 0;
      let last: Record<string, unknown> | null = null;
      const server = createServer((req, res) => {
        readBody(req, 1024 * 1024)
          .then((body) => {
            if (req.method === 'GET' && (req.url ?? '').split('?')[0]!.endsWith('/_received')) {
              const text = JSON.stringify({ count: n, last });
              res.writeHead(200, { 'content-type': 'application/json' }).end(text);
              return;
            }
            const status = answers[Math.min(n++, answers.length - 1)]!;
            try {
              last = parseCallbackBody(body.toString('utf8'), req.headers['content-type']).fields as Record<string, unknown>;
            } catch {
              last = null;
            }
            res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ status: status === 200 ? 'OK' : 'error' }));
          })
          .catch(() => res.destroy());
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      servers.push(server);
      urls[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${name}`;
    }
  } catch (err) {
    for (const s of servers) s.close();
    throw err;
  }
  return {
    urls,
    async close() {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((r) => {
              s.close(() => r());
              s.closeAllConnections();
            }),
        ),
      );
    },
  };
}
