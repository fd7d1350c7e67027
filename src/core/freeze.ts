/**
 * Freezes a constant and everything it holds (objects, arrays, functions' own properties), so that
 * a library user cannot change a rule for every later caller in the process (for example
 * `GATEWAY_CANONICAL.json.escapeSlash = false` would change every later callback signature).
 * Typed arrays are left as they are (they cannot be frozen); none is exported.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function') || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  Object.freeze(value);
  for (const key of Reflect.ownKeys(value as object)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  return value;
}
