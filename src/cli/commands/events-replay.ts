import { externalId, signCallbackRequest } from '../../core/callback/build.js';
import { parseCaptureObject } from '../../core/callback/capture.js';
import { GatewayError, NetworkError, UsageError } from '../../core/errors.js';
import { describeSendError, sendRaw } from '../../core/http/raw-post.js';
import { parseHttpUrl } from '../../core/http/serve.js';
import { forwardableHeaders } from '../../core/listener/forward.js';
import { bodyBytes } from '../../core/listener/stored-event.js';
import { callbackVa } from '../callback-shared.js';
import type { Handler } from '../command-env.js';
import { findEvent } from '../store-access.js';
import type { EventsFlags } from './events-flags.js';

/** `events replay ID --to URL [--resign]`: a stored request sent again, byte for byte. */
export const eventsReplay: Handler<EventsFlags> = async (env, id: string) => {
  const { opts, out, ctx } = env;
  if (!opts.to) throw new UsageError('events replay needs --to URL');
  const to = opts.to;
  parseHttpUrl(to, '--to');
  const event = await findEvent(env, id);
  let headers = forwardableHeaders(event.headers);
  let body = bodyBytes(event);
  if (opts.resign) {
    const parsed = parseCaptureObject({ headers: event.headers, body: event.body });
    const va = await callbackVa(env);
    const now = ctx.now();
    const signed = signCallbackRequest(
      Object.fromEntries(Object.entries(parsed.fields).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])),
      va,
      parsed.format,
      now,
      externalId(now, 1),
    );
    headers = { ...headers, 'x-signature': signed.signature, 'x-timestamp': signed.headers['X-Timestamp']!, 'x-external-id': signed.headers['X-External-ID']! };
    body = bodyBytes(event); // the same bytes, re-signed with this VA
  }
  let res;
  try {
    res = await sendRaw(to, { headers, body, timeoutMs: (await env.session.config()).timeout.value });
  } catch (err) {
    throw new NetworkError(`replay to ${to} failed: ${describeSendError(err)}`);
  }
  const result = { id: event.id, to, resigned: Boolean(opts.resign), answer: res.status, ms: res.ms, body: res.body };
  if (res.status !== 200)
    throw new GatewayError(res.status, `replay of ${event.id} to ${to} answered HTTP ${res.status}: ${res.body.trim().slice(0, 200)}`, { details: result });
  if (out.json) out.data(result);
  else out.out(`replayed ${event.id} → ${to}: ${out.c.green(String(res.status))} ${res.ms}ms ${res.body.trim().slice(0, 200)}`);
  return 'ok';
};
