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
