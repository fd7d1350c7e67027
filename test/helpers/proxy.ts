import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * Serves a proxy's CONNECT request as an open proxy does: a TCP tunnel to the `host:port` it names
 * (for a node:http server's 'connect' event).
 */
export function openTunnel(req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const [host, port] = req.url!.split(':');
  const upstream = connect(Number(port), host!, () => {
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.on('error', () => socket.destroy());
  socket.on('error', () => upstream.destroy());
}

/**
 * A proxy that accepts every CONNECT and closes the connection at once (nodejs/undici#3897: undici's
 * proxy agent then re-queues the request and reconnects without end). Counts the CONNECTs;
 * `firstConnect()` resolves once one has come.
 */
export async function closeOnConnectProxy(): Promise<{ url: string; connects: () => number; firstConnect: () => Promise<void>; close: () => Promise<void> }> {
  const { createServer } = await import('node:http');
  let connects = 0;
  const waiters: (() => void)[] = [];
  const proxy = createServer((_req, res) => void res.writeHead(405).end());
  proxy.on('connect', (_req, socket: Duplex) => {
    connects++;
    for (const w of waiters.splice(0)) w();
    socket.destroy();
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const { port } = proxy.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    connects: () => connects,
    firstConnect: () => new Promise<void>((r) => (connects > 0 ? r() : waiters.push(r))),
    close: () => new Promise<void>((r) => (proxy.closeAllConnections(), proxy.close(() => r()))),
  };
}
