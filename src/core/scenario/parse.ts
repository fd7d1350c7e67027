import { parseDuration } from '../duration.js';
import { ACTIONS } from '../statuses.js';

/**
 * A scenario file (`paycli scenario run FILE.yaml`): a payment's story as committed steps. Read and
 * checked whole before anything runs: an unknown key, a step without exactly one action, or a
 * `${…}` reference to a step or field not defined before it is an error naming its place.
 * docs/scenarios.md describes the format.
 */

/** A COD `create` step's parcel (the runner fills in the rest: one item, its size, the addresses). */
export const COD_KEYS = ['shipping', 'shippingService', 'deliveryArea', 'pickupArea', 'weight'] as const;

/** What each action takes: the keys of its map, or `trx` for an action given a transaction alone. */
const ACTION_KEYS: Record<string, readonly string[] | 'trx'> = {
  create: [
    'method',
    'channel',
    'amount',
    'notifyUrl',
    'referenceId',
    'expired',
    'expiredType',
    'escrow',
    'name',
    'phone',
    'email',
    'comments',
    'feeDirection',
    ...COD_KEYS,
  ],
  // The buyer (on the payment page) and the clock.
  pay: 'trx',
  cancel: 'trx',
  expire: 'trx',
  // Admin transitions (statuses.ts).
  ...Object.fromEntries(ACTIONS.filter((a) => !['pay', 'cancel', 'expire'].includes(a)).map((a) => [a, 'trx' as const])),
  clock: ['advance', 'set'],
  resend: ['trx', 'to'],
  expect_callback: ['trx', 'url', 'fields', 'answered', 'timeout'],
  expect_status: ['trx', 'status'],
  expect_parcel: ['trx', 'state'],
  expect_http: ['method', 'url', 'headers', 'body', 'status', 'json', 'timeout'],
};
export const STEP_ACTIONS = Object.keys(ACTION_KEYS);

/** What a `create` step makes referable: `${ID.trx}` and the rest. */
export const CREATE_OUTPUTS = ['trx', 'paymentNo', 'referenceId', 'sessionId', 'url', 'total'] as const;

const TOP_KEYS = ['name', 'description', 'sandbox', 'receivers', 'steps'];
const SANDBOX_KEYS = ['settlement', 'callbackFormat', 'retrySchedule'];
const RECEIVER_KEYS = ['answers'];

export interface ScenarioStep {
  /** Where it is in the file (`steps[2]`) and its name for reports. */
  index: number;
  id?: string;
  name: string;
  action: string;
  /** The action's argument, references not yet resolved. */
  arg: unknown;
}

export interface Scenario {
  name: string;
  sandbox: { settlement?: 'immediate' | 'deferred'; callbackFormat?: 'form' | 'json'; retrySchedule?: number[] };
  /** Stand-in merchant handlers the runner starts on loopback: name → HTTP statuses answered in turn. */
  receivers: Record<string, { answers: number[] }>;
  steps: ScenarioStep[];
}

export class ScenarioError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.length === 1 ? problems[0] : `${problems.length} problems:\n  ${problems.join('\n  ')}`);
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const REF = /\$\{([^}]*)\}/g;

/** Every `${…}` reference inside a value (strings at any depth). */
function refsIn(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') for (const m of v.matchAll(REF)) out.push(m[1]!);
  else if (Array.isArray(v)) for (const x of v) refsIn(x, out);
  else if (isObj(v)) for (const x of Object.values(v)) refsIn(x, out);
  return out;
}

/** The `sandbox` map: the emulator's settings for the run. */
function readSandbox(value: unknown, problems: string[]): Scenario['sandbox'] {
  const sandbox: Scenario['sandbox'] = {};
  if (value !== undefined) {
    if (!isObj(value)) problems.push('"sandbox" must be a map');
    else {
      for (const k of Object.keys(value)) if (!SANDBOX_KEYS.includes(k)) problems.push(`sandbox: unknown key "${k}" (keys: ${SANDBOX_KEYS.join(', ')})`);
      const s = value;
      if (s.settlement !== undefined) {
        if (s.settlement !== 'immediate' && s.settlement !== 'deferred') problems.push('sandbox.settlement: immediate or deferred');
        else sandbox.settlement = s.settlement;
      }
      if (s.callbackFormat !== undefined) {
        if (s.callbackFormat !== 'form' && s.callbackFormat !== 'json') problems.push('sandbox.callbackFormat: form or json');
        else sandbox.callbackFormat = s.callbackFormat;
      }
      if (s.retrySchedule !== undefined) {
        try {
          if (!Array.isArray(s.retrySchedule)) throw new Error('a list of durations');
          sandbox.retrySchedule = s.retrySchedule.map((d) => parseDuration(String(d)));
        } catch (err) {
          problems.push(`sandbox.retrySchedule: ${(err as Error).message}`);
        }
      }
    }
  }
  return sandbox;
}

/** The `receivers` map: named callback receivers and the statuses they answer, in turn. */
function readReceivers(value: unknown, problems: string[]): Scenario['receivers'] {
  const receivers: Scenario['receivers'] = {};
  if (value !== undefined) {
    if (!isObj(value)) problems.push('"receivers" must be a map of names');
    else
      for (const [name, r] of Object.entries(value)) {
        if (!/^[A-Za-z][\w-]*$/.test(name)) problems.push(`receivers.${name}: a name of letters, digits, - and _`);
        const conf = r ?? {};
        if (!isObj(conf)) {
          problems.push(`receivers.${name}: a map (answers: [500, 200])`);
          continue;
        }
        for (const k of Object.keys(conf))
          if (!RECEIVER_KEYS.includes(k)) problems.push(`receivers.${name}: unknown key "${k}" (keys: ${RECEIVER_KEYS.join(', ')})`);
        const answers = conf.answers ?? [200];
        if (!Array.isArray(answers) || answers.length === 0 || !answers.every((a) => Number.isInteger(a) && (a as number) >= 100 && (a as number) <= 599)) {
          problems.push(`receivers.${name}.answers: a list of HTTP statuses, e.g. [500, 200]`);
        } else receivers[name] = { answers: answers as number[] };
      }
  }
  return receivers;
}

/** Parses and checks a scenario file's text; throws ScenarioError listing every problem. */
export async function parseScenario(text: string, fileName = 'scenario'): Promise<Scenario> {
  const problems: string[] = [];
  // Loaded on use: the bundled CLI keeps packages external, behind import().
  const { parseDocument } = await import('yaml');
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) throw new ScenarioError(doc.errors.map((e) => `${fileName}: ${e.message.split('\n')[0]}`));
  const root = doc.toJS() as unknown;
  if (!isObj(root)) throw new ScenarioError([`${fileName}: a scenario is a map with "steps"`]);
  for (const k of Object.keys(root)) if (!TOP_KEYS.includes(k)) problems.push(`unknown key "${k}" (keys: ${TOP_KEYS.join(', ')})`);
  const sandbox = readSandbox(root.sandbox, problems);
  const receivers = readReceivers(root.receivers, problems);
  const steps: ScenarioStep[] = [];
  if (!Array.isArray(root.steps) || root.steps.length === 0) problems.push('"steps" must be a non-empty list');
  else {
    const defined = new Map<string, readonly string[]>();
    for (const name of Object.keys(receivers)) defined.set(`receivers.${name}`, ['url']);
    root.steps.forEach((raw, i) => {
      const at = `steps[${i}]`;
      if (!isObj(raw)) {
        problems.push(`${at}: a step is a map, e.g. { pay: "\${pay1.trx}" }`);
        return;
      }
      const actions = Object.keys(raw).filter((k) => k !== 'id' && k !== 'name');
      const unknown = actions.filter((k) => !(k in ACTION_KEYS));
      for (const k of unknown) problems.push(`${at}: unknown key "${k}" (actions: ${STEP_ACTIONS.join(', ')}; and id, name)`);
      const known = actions.filter((k) => k in ACTION_KEYS);
      if (unknown.length === 0 && known.length !== 1)
        problems.push(`${at}: exactly one action per step (found ${known.length === 0 ? 'none' : known.join(', ')})`);
      const action = known[0];
      const id = raw.id;
      if (id !== undefined && (typeof id !== 'string' || !/^[A-Za-z][\w-]*$/.test(id))) problems.push(`${at}.id: a name of letters, digits, - and _`);
      if (typeof id === 'string' && (defined.has(id) || id === 'receivers')) problems.push(`${at}.id: "${id}" is already defined`);
      if (!action) return;
      const arg = raw[action];
      const keys = ACTION_KEYS[action]!;
      if (keys === 'trx') {
        if (typeof arg !== 'string' && typeof arg !== 'number') problems.push(`${at}.${action}: a transaction id or a reference like "\${pay1.trx}"`);
      } else if (!isObj(arg)) problems.push(`${at}.${action}: a map with ${keys.join(', ')}`);
      else for (const k of Object.keys(arg)) if (!keys.includes(k)) problems.push(`${at}.${action}: unknown key "${k}" (keys: ${keys.join(', ')})`);
      if (isObj(arg)) checkArg(action, arg, `${at}.${action}`, problems);
      for (const ref of refsIn(arg)) {
        const dot = ref.lastIndexOf('.');
        const owner = dot < 0 ? ref : ref.slice(0, dot);
        const field = dot < 0 ? '' : ref.slice(dot + 1);
        const fields = defined.get(owner);
        if (!fields) problems.push(`${at}.${action}: \${${ref}} refers to "${owner}", which no earlier step or receiver defines`);
        else if (!fields.includes(field)) problems.push(`${at}.${action}: \${${ref}}: "${owner}" has ${fields.map((f) => `${owner}.${f}`).join(', ')}`);
      }
      if (typeof id === 'string' && action === 'create') defined.set(id, CREATE_OUTPUTS);
      steps.push({
        index: i,
        ...(typeof id === 'string' ? { id } : {}),
        name: typeof raw.name === 'string' ? raw.name : `${action}${typeof id === 'string' ? ` ${id}` : ''}`,
        action,
        arg,
      });
    });
  }
  if (problems.length > 0) throw new ScenarioError(problems.map((p) => `${fileName}: ${p}`));
  return { name: typeof root.name === 'string' ? root.name : fileName, sandbox, receivers, steps };
}

/** Checks the values of a step whose values are known before it runs (not references). */
function checkArg(action: string, a: Record<string, unknown>, at: string, problems: string[]): void {
  const literal = (v: unknown) => typeof v === 'string' && !v.includes('${');
  if (action === 'create') {
    for (const k of ['method', 'channel', 'notifyUrl']) if (a[k] === undefined) problems.push(`${at}: "${k}" is required`);
    if (a.amount !== undefined && !(Number.isInteger(a.amount) && (a.amount as number) > 0)) problems.push(`${at}.amount: a whole number of Rupiah`);
  }
  if (action === 'clock') {
    const n = ['advance', 'set'].filter((k) => a[k] !== undefined).length;
    if (n !== 1) problems.push(`${at}: one of advance (a duration) or set (a time)`);
    if (literal(a.advance)) {
      try {
        parseDuration(String(a.advance), { maxMs: 3650 * 86_400_000 });
      } catch (err) {
        problems.push(`${at}.advance: ${(err as Error).message}`);
      }
    }
    if (literal(a.set) && Number.isNaN(new Date(String(a.set)).getTime())) problems.push(`${at}.set: an ISO 8601 time, e.g. 2026-12-01T10:00+07:00`);
  }
  if ((action === 'resend' || action === 'expect_status' || action === 'expect_callback') && a.trx === undefined) problems.push(`${at}: "trx" is required`);
  if (action === 'expect_status' && a.status === undefined) problems.push(`${at}: "status" is required`);
  if (action === 'expect_parcel' && (a.trx === undefined || typeof a.state !== 'string'))
    problems.push(`${at}: "trx" and "state" (waiting for pickup, picked up, in transit, delivered, cancelled) are required`);
  if (action === 'expect_callback' && a.fields !== undefined && !isObj(a.fields)) problems.push(`${at}.fields: a map of callback fields`);
  if (action === 'expect_http') {
    if (a.url === undefined) problems.push(`${at}: "url" is required`);
    if (a.json !== undefined && !isObj(a.json)) problems.push(`${at}.json: a map of JSON paths (a.b.0) to values`);
  }
  for (const k of ['timeout']) {
    if (literal(a[k])) {
      try {
        parseDuration(String(a[k]));
      } catch (err) {
        problems.push(`${at}.${k}: ${(err as Error).message}`);
      }
    }
  }
}

/** Replaces `${…}` references with their values (a string that is one reference keeps the value's type). */
export function resolveRefs(v: unknown, values: Map<string, unknown>): unknown {
  if (typeof v === 'string') {
    const whole = /^\$\{([^}]*)\}$/.exec(v);
    if (whole) return values.get(whole[1]!);
    return v.replace(REF, (_, ref: string) => String(values.get(ref)));
  }
  if (Array.isArray(v)) return v.map((x) => resolveRefs(x, values));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveRefs(x, values)]));
  return v;
}
