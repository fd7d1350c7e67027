/**
 * What a request signature covers when the body is a form or the request a GET with a query: the
 * JSON that the gateway's Postman collection ("iPaymu Public API v2", github.com/ipaymu/docs-ipaymu-api-v2)
 * builds in its collection-level pre-request script — the query's parameters, then the form's
 * fields as strings in an object keyed by name (a repeated name keeps its first place and its last
 * value), `name[]` becoming the list `name` (the item fields `product`, `qty`, `price`, `weight`,
 * `width`, `height`, `length`, `description`, `imageUrl` split at commas). Plain objects, as in the
 * script, so the key order is JSON.stringify's there. A JSON body is signed over its own bytes.
 */
export type FormField = [string, string];

const ARRAY_FIELDS = new Set(['product', 'qty', 'price', 'weight', 'width', 'height', 'length', 'description', 'imageUrl']);

export function formSigningJson(query: readonly FormField[], fields: readonly FormField[]): string {
  const data: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of query) data[k] = v;
  const temp: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of fields) temp[k] = v;
  for (const k of Object.keys(temp)) {
    const v = temp[k]!;
    if (k.endsWith('[]')) {
      const base = k.slice(0, -2);
      data[base] = ARRAY_FIELDS.has(base) && v.includes(',') ? v.split(',').map((x) => x.trim()) : [v];
    } else data[k] = v;
  }
  return JSON.stringify(data);
}
