import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors.js';

export interface ServeOptions {
  port: number;
  host: string;
  /** A client must send its whole request within this many ms. */
  requestTimeoutMs: number;
}

/**
 * Hardens and starts a local server: request and header timeouts (slow clients cannot hold it),
 * a plain 400 for unparsable requests instead of an error, and `http://host:port` once listening.
 */
export async function serve(server: Server, o: ServeOptions): Promise<{ origin: string; port: number }> {
  server.requestTimeout = o.requestTimeoutMs;
  server.headersTimeout = Math.min(o.requestTimeoutMs, 10_000);
  server.keepAliveTimeout = 5_000;
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { origin: `http://${host}:${address.port}`, port: address.port };
}

/** Checks that a value is an http(s) URL; `label` names it in the error (a flag or setting). */
export function parseHttpUrl(value: string, label: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`invalid ${label} "${value}": not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`invalid ${label} "${value}": expected an http(s) URL`);
  return url;
}
