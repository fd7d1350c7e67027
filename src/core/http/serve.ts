import type { Server } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { NetworkError, UsageError } from '../errors.js';

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/**
 * Checks an address to listen on (`--host`): an IPv4 or IPv6 address (brackets allowed) or a host
 * name. Anything else (`256.1.1.1`, `a b`) is a usage error, before any lookup. Returns the
 * address as `listen` takes it.
 */
export function parseBindHost(value: string): string {
  const host = value.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) return host;
  // All digits and dots but not an IPv4 address: a typo'd address, never a name.
  if (host !== '' && !/^[\d.]+$/.test(host) && HOST_NAME.test(host)) return host;
  throw new UsageError(`invalid --host "${value}": not an IP address or a host name`, {
    hint: 'e.g. --host 127.0.0.1 (this machine only), --host 0.0.0.0 (every interface) or --host ::1',
  });
}

/** The OS's refusal to listen on an address, as a one-line error naming it (EADDRINUSE is left to the caller). */
function bindError(err: NodeJS.ErrnoException, host: string, port: number): unknown {
  const where = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  switch (err.code) {
    case 'EADDRNOTAVAIL':
      return new UsageError(`cannot listen on ${where}: address not available (it is not an address of this machine)`, {
        hint: 'use 127.0.0.1, 0.0.0.0 or an address `ip addr` lists',
      });
    case 'ENOTFOUND':
    case 'EAI_NONAME':
      return new UsageError(`cannot listen on ${where}: the host name does not resolve (${err.code})`, {
        hint: 'use an IP address of this machine, e.g. 127.0.0.1',
      });
    case 'EAI_AGAIN':
      return new NetworkError(`cannot listen on ${where}: the host name could not be looked up (${err.code}, DNS)`, {
        hint: 'try again, or use an IP address',
      });
    case 'EACCES':
    case 'EPERM':
      return new UsageError(`cannot listen on ${where}: permission denied${port > 0 && port < 1024 ? ' (ports below 1024 need privileges)' : ''}`, {
        hint: 'pick another --port (0 for any free port)',
      });
    case 'EAFNOSUPPORT':
      return new UsageError(`cannot listen on ${where}: address family not supported on this machine`);
    default:
      return err;
  }
}

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
  const bindHost = parseBindHost(o.host);
  await new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => reject(bindError(err, bindHost, o.port));
    server.once('error', failed);
    server.listen(o.port, bindHost, () => {
      server.off('error', failed);
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
