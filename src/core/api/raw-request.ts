import { formSigningJson } from '../signing/form-signature.js';
import { UsageError } from '../errors.js';

/** The methods `paycli api` sends (the gateway's documented endpoints use GET and POST). */
export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ApiMethod = (typeof API_METHODS)[number];

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
export const JSON_CONTENT_TYPE = 'application/json';

/** `get` or `Post` as one of API_METHODS; anything else is a usage error. */
export function readApiMethod(text: string): ApiMethod {
  const upper = text.toUpperCase();
  const found = API_METHODS.find((m) => m === upper);
  if (!found) throw new UsageError(`unknown method "${text}": use one of ${API_METHODS.join(', ')}`);
  return found;
}

/**
 * An API path relative to the base URL (which carries the `/api` prefix): `v2/balance`,
 * `/v2/payment/direct`, `areas/province`. A full URL, or a path that climbs out of the API root,
 * is refused: the base URL decides where requests go (and so the production guard sees them).
 */
export function readApiPath(text: string): string {
  // The base URL ends in /api; the gateway's docs write paths from the host (`/api/v2/balance`): both are taken.
  const path = text
    .trim()
    .replace(/^\/+/, '')
    .replace(/^api\/(?=v\d+\/|areas\b)/, '');
  if (path === '') throw new UsageError('give an API path, for example v2/balance');
  // URL parsing reads `\` as `/` and drops tabs and line breaks: refused, so what is checked is what is sent.
  if (/[\\\s\x00-\x1f\x7f]/.test(path)) throw new UsageError(`the path may not contain a backslash, a space or a control character: ${JSON.stringify(text)}`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || text.trim().startsWith('//')) {
    throw new UsageError(`give a path relative to the base URL, not a URL: ${text}`, { hint: 'aim at another gateway with --env or --base-url' });
  }
  const route = path.split(/[?#]/, 1)[0]!;
  if (route.split('/').some((seg) => seg === '..' || seg === '.' || /%2e/i.test(seg)))
    throw new UsageError(`the path may not contain "." or ".." segments: ${text}`);
  return path;
}

type Value = string | number | boolean | null | Value[] | { [k: string]: Value };

/** One `--field`: `name=text` (a string), `name:=JSON` (a number, true, an array…), `name[]=…` appends. */
interface Field {
  name: string;
  append: boolean;
  value: Value;
}

function readField(spec: string): Field {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new UsageError(`--field ${spec}: write name=value (a string) or name:=JSON (a number, true, null, a list…)`);
  const typedValue = spec[eq - 1] === ':';
  let name = spec.slice(0, typedValue ? eq - 1 : eq);
  const raw = spec.slice(eq + 1);
  const append = name.endsWith('[]');
  if (append) name = name.slice(0, -2);
  if (name === '' || /[[\]]/.test(name)) throw new UsageError(`--field ${spec}: the name must be a plain key (name, or name[] to build a list)`);
  let value: Value = raw;
  if (typedValue) {
    try {
      value = JSON.parse(raw) as Value;
    } catch {
      throw new UsageError(`--field ${spec}: the value after := is not JSON`, { hint: 'use name=value for a string' });
    }
  }
  return { name, append, value };
}

/** The fields as one object, in the order first named; `name[]` collects a list. */
function fieldsObject(specs: string[]): Record<string, Value> {
  const obj: Record<string, Value> = Object.create(null);
  for (const spec of specs) {
    const f = readField(spec);
    const prev = obj[f.name];
    if (f.append) {
      if (prev !== undefined && !Array.isArray(prev)) throw new UsageError(`--field ${spec}: ${f.name} was given as a single value before`);
      obj[f.name] = [...((prev as Value[] | undefined) ?? []), f.value];
    } else {
      if (prev !== undefined) throw new UsageError(`--field ${spec}: ${f.name} is given twice (use ${f.name}[]=… for a list)`);
      obj[f.name] = f.value;
    }
  }
  return obj;
}

function formScalar(name: string, v: Value): string {
  if (v === null) return '';
  if (typeof v === 'object') throw new UsageError(`--field ${name}: a form body holds text, numbers and lists of them, not objects`);
  return String(v);
}

/** The fields as `application/x-www-form-urlencoded` (lists as repeated `name[]=`, as PHP reads them). */
function formBody(obj: Record<string, Value>): string {
  const params = new URLSearchParams();
  for (const [name, v] of Object.entries(obj)) {
    if (Array.isArray(v)) for (const item of v) params.append(`${name}[]`, formScalar(name, item));
    else params.append(name, formScalar(name, v));
  }
  return params.toString();
}

export interface ApiBodyInput {
  method: ApiMethod;
  /** The body text as given (`--data`, a file's or stdin's bytes). */
  data?: string;
  /** `--field` specs. */
  fields: string[];
  /** `--form`: send a form body instead of JSON. */
  form: boolean;
}

export interface ApiBody {
  /** The exact bytes to send; undefined for none. */
  body?: string;
  /** What the signature covers when it is not the body: a form's fields as JSON (form-signature.ts). */
  signed?: string;
  contentType: string;
}

/**
 * What the signature of a request covers: a JSON body's bytes; a form's fields, or a body-less
 * request's query, as the JSON the gateway's Postman collection signs (form-signature.ts).
 */
export function apiSigned(path: string, b: ApiBody): string | undefined {
  const query = [...new URLSearchParams(path.includes('?') ? path.slice(path.indexOf('?') + 1).split('#', 1)[0] : '')];
  if (b.contentType === FORM_CONTENT_TYPE && b.body !== undefined) return formSigningJson(query, [...new URLSearchParams(b.body)]);
  if ((b.body === undefined || b.body === '') && query.length > 0) return formSigningJson(query, []);
  return b.body;
}

/**
 * The body `paycli api` signs and sends. `--data` is sent byte for byte (the signature covers
 * those exact bytes), and must be JSON unless `--form`; `--field`s build a JSON object (or a form).
 * GET and DELETE send no body.
 */
export function buildApiBody(input: ApiBodyInput): ApiBody {
  const contentType = input.form ? FORM_CONTENT_TYPE : JSON_CONTENT_TYPE;
  const hasFields = input.fields.length > 0;
  if (input.data !== undefined && hasFields) throw new UsageError('give the body with --data or with --field, not both');
  if ((input.method === 'GET' || input.method === 'DELETE') && (input.data !== undefined || hasFields)) {
    throw new UsageError(`${input.method} sends no body: drop --data/--field, or use POST`);
  }
  if (input.data !== undefined) {
    if (!input.form) {
      try {
        JSON.parse(input.data);
      } catch {
        throw new UsageError('--data is not JSON', { hint: 'add --form to send a form body, or fix the JSON' });
      }
    }
    return { body: input.data, contentType };
  }
  if (!hasFields) return { body: input.method === 'GET' || input.method === 'DELETE' ? undefined : input.form ? '' : '{}', contentType };
  const obj = fieldsObject(input.fields);
  return { body: input.form ? formBody(obj) : JSON.stringify(obj), contentType };
}
