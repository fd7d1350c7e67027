import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LiveHub } from '../dashboard/html.js';
import { BodyTooLarge, readBody } from '../http/read-body.js';
import { isoJakarta } from '../time.js';
import type { SandboxClock } from './clock.js';
import { isDashboardPath } from './dashboard.js';
import { drawFaults } from './faults.js';
import { noteOf, noteRequest, type RequestLog } from './request-log.js';
import type { SandboxOptions } from './server-types.js';
import { StoreError } from './state.js';
import { envelope } from './views.js';

export interface IntakeDeps {
  route(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void>;
  requests: RequestLog;
  clock: SandboxClock;
  /** The dashboard's live hub, or null when the dashboard is off. */
  hub: LiveHub | null;
  emit: NonNullable<SandboxOptions['onEvent']>;
  /** The largest body accepted, in bytes. */
  limit: number;
  apiFaults: NonNullable<SandboxOptions['apiFaults']>;
  random: () => number;
}

/**
 * The emulator's request step: read the body (size-limited), draw the API faults, route it, log it,
 * and answer whatever went wrong in one place. It holds the requests an `api-timeout` fault leaves
 * unanswered until they close or the emulator does.
 */
export class RequestIntake {
  private readonly held = new Set<ServerResponse>();

  constructor(private readonly d: IntakeDeps) {}

  handle(req: IncomingMessage, res: ServerResponse): void {
    const { d } = this;
    const started = performance.now();
    // The dashboard's own page loads are not API traffic: not logged.
    if (d.hub && isDashboardPath((req.url ?? '').split('?')[0]!))
      return void readBody(req, d.limit)
        .then((body) => d.route(req, res, body))
        .catch(() => res.destroy());
    const path = (req.url ?? '').split('?')[0]!;
    const logged = (status: number) => {
      const e = { method: req.method ?? '?', path, status, ms: Math.round((performance.now() - started) * 10) / 10, ...noteOf(res) };
      d.requests.add({ time: isoJakarta(d.clock.now()), ...e });
      d.hub?.changed();
      d.emit({ type: 'request', ...e });
    };
    res.on('finish', () => logged(res.statusCode));
    // API faults are drawn before anything is read or routed: a faulted request changes no state.
    const fault = d.apiFaults.length > 0 ? drawFaults(d.apiFaults, path, d.random) : { delayMs: 0 };
    const handle = async (body: Buffer) => {
      if (fault.delayMs > 0) {
        noteRequest(res, { fault: 'api-slow' });
        await new Promise((r) => setTimeout(r, fault.delayMs));
      }
      if (fault.fail === 'api-500') {
        noteRequest(res, { fault: 'api-500' });
        envelope(res, 500, 'internal server error (injected by --faults api-500; nothing was changed)', null);
        return;
      }
      if (fault.fail === 'api-timeout') {
        // No answer: the client's own timeout decides. Logged now, since it never finishes.
        noteRequest(res, { fault: 'api-timeout' });
        this.held.add(res);
        res.on('close', () => this.held.delete(res));
        logged(0);
        return;
      }
      await d.route(req, res, body);
    };
    readBody(req, d.limit)
      .then(handle)
      .catch((err: unknown) => this.failed(res, err));
  }

  /** Drops the requests held unanswered (at close). */
  dropHeld(): void {
    for (const r of this.held) r.destroy();
  }

  private failed(res: ServerResponse, err: unknown): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof BodyTooLarge) {
      res.setHeader('connection', 'close');
      envelope(res, 413, `request body over ${this.d.limit} bytes`, null);
      return;
    }
    if (err instanceof StoreError) {
      // Nothing was stored and nothing changed: the client may retry once there is room.
      this.d.emit({ type: 'store-error', message: err.message });
      res.setHeader('retry-after', '5');
      envelope(res, 503, 'service unavailable - the emulator cannot store this request now; nothing was changed', null);
      return;
    }
    envelope(res, 500, `internal emulator error: ${(err as Error).message}`, null);
  }
}
