import { isAbsent, PAYMENT_LIMITS as LIMITS, type FieldErrors, type RuleResult } from '../payment-rules.js';

/** A request body being read: its fields (`null` dropped: absent) and the field errors so far. */
export class BodyReader {
  readonly body: Record<string, unknown> = {};
  readonly errors: FieldErrors = {};

  constructor(raw: Record<string, unknown>) {
    for (const [k, v] of Object.entries(raw)) if (v !== null) this.body[k] = v;
  }

  add(field: string, message: string): void {
    (this.errors[field] ??= []).push(message);
  }

  /** A text field (a number is taken as its text), at most `max` characters. */
  text(field: string, required: boolean, max: number = LIMITS.maxText): string | undefined {
    const v = this.body[field];
    if (isAbsent(v)) {
      if (required) this.add(field, `${field} wajib diisi.`);
      return undefined;
    }
    if (typeof v !== 'string' && typeof v !== 'number') {
      this.add(field, `${field} harus berupa teks.`);
      return undefined;
    }
    const s = String(v);
    if (s.length > max) this.add(field, `${field} maksimal ${max} karakter.`);
    return s;
  }

  /** A rule's value, or its message added under `field`. */
  checked(field: string, r: RuleResult): number | undefined {
    if (r.ok) return r.value;
    this.add(field, r.message);
    return undefined;
  }

  /** Whether a field whose name matches has an error. */
  hasErrorIn(fields: RegExp): boolean {
    return Object.keys(this.errors).some((k) => fields.test(k));
  }
}
