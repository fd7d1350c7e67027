import type { IncomingMessage } from 'node:http';
import { formSigningJson } from '../signing/form-signature.js';

/**
 * The body forms the gateway's own clients send, read as one JSON object for the routes, with what
 * their signatures cover (authenticate.ts):
 *
 * - JSON (the SDKs, paycli): signed over the exact bytes sent;
 * - `application/x-www-form-urlencoded` and `multipart/form-data` (the gateway's Postman collection
 *   "iPaymu Public API v2", github.com/ipaymu/docs-ipaymu-api-v2): signed over the JSON of the fields
 *   as its collection-level pre-request script computes it — the query's parameters, then the body's
 *   fields as strings, the last of repeated names winning, a `name[]` field becoming the array
 *   `name` (for the item fields, split at commas);
 * - a GET with a query: signed over the JSON of the query's parameters (the same script).
 *
 * For the routes, a `name[]` field sent several times keeps every value, in order.
 */
export interface DecodedBody {
  /** The body for the routes: the JSON bytes as sent, or the JSON of the form's fields. */
  json: Buffer;
  /** What a valid signature may cover (each hashed as sent). */
  signed: Buffer[];
  /** Whether the body was a form (the route answers 400 on a form it cannot read). */
  form: boolean;
}

type Field = [string, string];

function mediaTypeOf(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/** The collection script's signing JSON (one home: signing/form-signature.ts). */
export const scriptSigningJson = formSigningJson;

/** The routes' object: `name[]` fields as arrays of every value sent, other names their last value. */
export function fieldsObject(fields: Field[]): Record<string, unknown> {
  const o: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of fields) {
    if (k.endsWith('[]')) {
      const base = k.slice(0, -2);
      const list = Array.isArray(o[base]) ? (o[base] as string[]) : [];
      list.push(v);
      o[base] = list;
    } else o[k] = v;
  }
  return o;
}

/** The fields of a form body, in order; undefined when a multipart body cannot be read. */
async function formFields(contentType: string, body: Buffer): Promise<Field[] | undefined> {
  if (mediaTypeOf(contentType) === 'application/x-www-form-urlencoded') return [...new URLSearchParams(body.toString('utf8'))];
  try {
    // Node's own multipart reader (fetch's Response); a file part counts by its file name only.
    const form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
    const fields: Field[] = [];
    for (const [k, v] of form) fields.push([k, typeof v === 'string' ? v : v.name]);
    return fields;
  } catch {
    return undefined;
  }
}

/** Reads a request's body in the form it was sent; undefined for a form that cannot be read. */
export async function decodeBody(req: IncomingMessage, body: Buffer, url: URL): Promise<DecodedBody | undefined> {
  const contentType = String(req.headers['content-type'] ?? '');
  const type = mediaTypeOf(contentType);
  const query: Field[] = [...url.searchParams];
  if (type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data') {
    const fields = await formFields(contentType, body);
    if (!fields) return undefined;
    return { json: Buffer.from(JSON.stringify(fieldsObject(fields))), signed: [Buffer.from(scriptSigningJson(query, fields))], form: true };
  }
  const signed: Buffer[] = [body];
  if (query.length > 0 && body.length === 0) {
    // A GET (or a body-less request) with a query: signed over the query's JSON; the routes read the query.
    signed.push(Buffer.from(scriptSigningJson(query, [])));
    return { json: Buffer.from(JSON.stringify(fieldsObject(query))), signed, form: false };
  }
  return { json: body, signed, form: false };
}
