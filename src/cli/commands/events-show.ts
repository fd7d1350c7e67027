import { parseCaptureObject } from '../../core/callback/capture.js';
import { checkCallback } from '../../core/callback/check.js';
import { escapeControl as esc } from '../../core/terminal-text.js';
import { diagnosisKeys } from '../callback-shared.js';
import type { Handler } from '../command-env.js';
import { wib } from '../output.js';
import { findEvent } from '../store-access.js';
import type { EventsFlags } from './events-flags.js';

/** `events show ID`: one stored request whole, with its canonical JSON and a recheck of its signature. */
export const eventsShow: Handler<EventsFlags> = async (env, id: string) => {
  const event = await findEvent(env, id);
  const { out } = env;
  let canonical: string | null = null;
  let check: ReturnType<typeof checkCallback> | null = null;
  try {
    const parsed = parseCaptureObject({ headers: event.headers, body: event.body });
    const cfg = await env.session.config();
    if (cfg.va) {
      check = checkCallback(parsed.fields, parsed.headerSignature ?? '', cfg.va.value, { diagnose: true, otherKeys: await diagnosisKeys(env) });
      canonical = check.canonical;
    }
  } catch {
    canonical = null;
  }
  if (out.json) {
    out.data({ ...event, canonical, recheck: check ? { verdict: check.verdict, reason: check.reason } : null });
    return 'ok';
  }
  const c = out.c;
  // Headers, body and fields came from the sender: control characters escaped (the body keeps its lines).
  out.out(
    [
      `${c.bold(esc(event.id))}  ${esc(wib(String(event.receivedAt)))} WIB  ${esc(event.method)} ${esc(event.path)}  → ${esc(String(event.answer))}`,
      `verdict: ${esc(String(event.verdict))}${event.variant ? ` (${esc(event.variant)})` : ''}${event.reason ? ` — ${esc(event.reason)}` : ''}${event.duplicate ? ' · duplicate' : ''}`,
      '',
      ...Object.entries(event.headers).map(([k, v]) => `${esc(k)}: ${esc(String(v))}`),
      '',
      esc(event.body, { multiline: true }),
      ...(canonical ? ['', c.dim('canonical JSON:'), esc(canonical)] : []),
    ].join('\n'),
  );
  return 'ok';
};
