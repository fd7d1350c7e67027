import { NetworkError, PaycliError } from '../../core/errors.js';
import { describeSendError, sendRaw, type RawResponse } from '../../core/http/raw-post.js';
import type { CommandEnv } from '../command-env.js';
import { createSpinner } from '../spinner.js';

/** How a check's callback is sent: a form body, typed JSON (as the gateway), or JSON with every value a string. */
export type Shape = 'form' | 'json' | 'json-strings';

export interface CheckOutcome {
  name: string;
  format: Shape;
  expectation: string;
  observation: string;
  passed: boolean;
  ms: number | null;
  /** The first line of the handler's answer, for a failed check. */
  body?: string;
  /** Why the check judged the HTTP answer only (no --order-url, no order for it): its effect was not seen. */
  unobserved?: string;
}

export type Body = { body: string; headers: Record<string, string> };
export type Sent = { res?: RawResponse; error?: string };

/** Network failures that mean nothing answers at the URL at all (as opposed to a slow handler). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** A line of text from the handler, safe for a terminal: control characters escaped, at most `max` long. */
export function firstLine(text: string, max = 120): string {
  const line = (text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '').trim();
  const safe = line.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return safe.length > max ? safe.slice(0, max - 1) + '…' : safe;
}

function xmlEscape(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** Renders outcomes as JUnit XML for CI systems: one case per check (a check whose effect was not seen is marked so). */
export function junitXml(url: string, outcomes: CheckOutcome[]): string {
  const failures = outcomes.filter((o) => !o.passed).length;
  const cases = outcomes
    .map((o) => {
      const name = xmlEscape(`${o.name} (${o.format})`);
      const time = ((o.ms ?? 0) / 1000).toFixed(3);
      const open = `    <testcase classname="paycli.test-handler" name="${name}" time="${time}"`;
      if (!o.passed) return `${open}>\n      <failure message="${xmlEscape(`expected ${o.expectation}, got ${o.observation}`)}"/>\n    </testcase>`;
      if (o.observation === 'not run') return `${open}>\n      <skipped message="${xmlEscape(o.unobserved ?? 'not run')}"/>\n    </testcase>`;
      return o.unobserved ? `${open}>\n      <system-out>${xmlEscape(`effect not seen: ${o.unobserved}`)}</system-out>\n    </testcase>` : `${open}/>`;
    })
    .join('\n');
  const skipped = outcomes.filter((o) => o.observation === 'not run').length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="${xmlEscape(`callback handler ${url}`)}" tests="${outcomes.length}" failures="${failures}" skipped="${skipped}">\n${cases}\n  </testsuite>\n</testsuites>\n`;
}

/** One run of the suite: sends callbacks to the handler, shows each check as it finishes, keeps the outcomes. */
export class Suite {
  readonly outcomes: CheckOutcome[] = [];
  private reached = false;
  private spinner?: import('ora').Ora;

  constructor(
    private readonly env: CommandEnv,
    readonly url: string,
    readonly deadline: number,
  ) {}

  async start(): Promise<void> {
    const { out, ctx } = this.env;
    // On a terminal a spinner says which check is running. It leaves stdin alone (see spinner.ts), so Ctrl-C is SIGINT.
    if (!out.json && ctx.stderrIsTTY) this.spinner = await createSpinner(ctx);
  }

  stop(): void {
    this.spinner?.stop();
  }

  async post(b: Body): Promise<Sent> {
    const { ctx } = this.env;
    try {
      const res = await sendRaw(this.url, { headers: b.headers, body: b.body, timeoutMs: this.deadline, signal: ctx.interrupts() });
      this.reached = true;
      return { res };
    } catch (err) {
      // Ctrl-C: stop the suite at once (exit 130), not record a failed check.
      if (ctx.interrupts().aborted) throw new PaycliError('interrupted', 'interrupted: the suite was stopped');
      const code = (err as NodeJS.ErrnoException).code ?? '';
      // Nothing listens there: one line and exit 5, not a list of failed checks.
      if (!this.reached && UNREACHABLE.has(code)) {
        throw new NetworkError(`cannot reach the handler at ${this.url}: ${describeSendError(err)}`, {
          hint: 'start your app (or check the URL and port), then run test-handler again',
        });
      }
      return { error: describeSendError(err) }; // a timeout reads "no answer within DEADLINE ms"
    }
  }

  running(name: string, shape: Shape): void {
    if (!this.spinner) return;
    this.spinner.text = `${name} (${shape})`;
    if (!this.spinner.isSpinning) this.spinner.start();
    else this.spinner.render();
  }

  show(o: CheckOutcome): void {
    this.outcomes.push(o);
    const { out } = this.env;
    if (out.json) return;
    const c = out.c;
    this.spinner?.clear();
    // Fits 80 columns: mark, shape, check, then what was observed (the detail goes on the next line).
    const short = o.passed ? o.observation : o.observation.split(':')[0]!;
    const observed = short.length > 18 ? short.slice(0, 17) + '…' : short;
    const mark = !o.passed ? c.red('✗') : o.unobserved ? c.yellow('~') : c.green('✓');
    const name = o.name.length > 46 ? o.name.slice(0, 45) + '…' : o.name;
    out.out(`${mark} ${o.format.padEnd(13)}${name.padEnd(46)} ${observed}`);
    if (!o.passed) {
      const detail = `expected ${o.expectation}, got ${o.observation}`;
      out.out(c.dim(`    ${detail.length > 76 ? detail.slice(0, 75) + '…' : detail}`));
    }
  }

  /** The HTTP part of an observation: `HTTP 200`, or with the handler's first line when it failed. */
  observe(r: Sent, passed: boolean): Pick<CheckOutcome, 'observation' | 'body'> {
    if (!r.res) return { observation: r.error! };
    const line = firstLine(r.res.body);
    return passed || !line ? { observation: `HTTP ${r.res.status}` } : { observation: `HTTP ${r.res.status}: ${line}`, body: line };
  }

  /** Sends one callback and judges the answer: 200 when it must be accepted, anything else when not. */
  async expect(name: string, shape: Shape, body: Body, accept: boolean, unobserved?: string): Promise<boolean> {
    this.running(name, shape);
    const r = await this.post(body);
    const passed = r.res !== undefined && (accept ? r.res.status === 200 : r.res.status !== 200);
    this.show({
      name,
      format: shape,
      expectation: accept ? 'HTTP 200' : 'rejected (not 200)',
      ...this.observe(r, passed),
      passed,
      ms: r.res?.ms ?? null,
      ...(unobserved ? { unobserved } : {}),
    });
    return passed;
  }
}
