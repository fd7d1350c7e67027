import { AuthError, GatewayError, UsageError } from '../errors.js';
import { maskSecret } from '../signing/request-signature.js';

/**
 * The gateway's Close API: private endpoints granted per account (a 403 otherwise), signed like
 * every v2 request (docs/merchant-api.md, "Close API"; paths from the gateway's docs repository,
 * content/close-api/*.mdx).
 */
export const CLOSE_PATHS = {
  transferva: 'v2/transferva',
  register: 'v2/register',
  profile: 'v2/profile',
  banklist: 'v2/banklist',
  businessCategory: 'v2/business-category',
} as const;

export interface TransferVaInput {
  sender: string;
  receiver: string;
  amount: number;
  relatedId?: string;
  referenceId?: string;
  notes?: string;
}

const VA_RE = /^\d{6,20}$/;

function va(value: string, flag: string): string {
  if (!VA_RE.test(value)) throw new UsageError(`invalid ${flag} "${value}": a VA is 6 to 20 digits`);
  return value;
}

/** The `transferva` body: a split of money from one member's VA to another's (whole Rupiah). */
export function encodeTransferVaBody(input: TransferVaInput): string {
  if (!Number.isSafeInteger(input.amount) || input.amount <= 0) throw new UsageError(`invalid amount ${input.amount}: whole Rupiah above 0`);
  const body: Record<string, string | number> = { sender: va(input.sender, '--sender'), receiver: va(input.receiver, '--receiver'), amount: input.amount };
  if (input.sender === input.receiver) throw new UsageError('--sender and --receiver are the same VA');
  if (input.relatedId !== undefined) {
    if (!/^\d{1,15}$/.test(input.relatedId)) throw new UsageError(`invalid --related-id "${input.relatedId}": a transaction id (digits)`);
    body.relatedId = input.relatedId; // a string in the gateway's table
  }
  if (input.referenceId !== undefined) body.referenceId = input.referenceId;
  if (input.notes !== undefined) body.notes = input.notes;
  return JSON.stringify(body);
}

export interface RegisterInput {
  name: string;
  email: string;
  phone: string;
  password: string;
  websiteUrl?: string;
  websiteIp?: string;
}

/** The `register` body; the password is at least 8 characters (the gateway's rule). */
export function encodeRegisterBody(input: RegisterInput): string {
  if (input.password.length < 8) throw new UsageError('the password must be at least 8 characters');
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(input.email)) throw new UsageError(`invalid email "${input.email}"`);
  const body: Record<string, string> = { name: input.name, email: input.email, phone: input.phone, password: input.password };
  if (input.websiteUrl !== undefined) body.website_url = input.websiteUrl;
  if (input.websiteIp !== undefined) body.website_ip = input.websiteIp;
  return JSON.stringify(body);
}

/** Fields of a profile that are secrets or identity numbers: masked wherever the profile is shown. */
const MASKED_PROFILE_FIELDS = ['apikey', 'nik', 'nationalid', 'national_id', 'password', 'banknumber', 'bank_number'];

/** A profile answer with its API key, national id and bank account number masked (maskSecret). */
export function maskProfile(data: unknown): unknown {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    out[k] = MASKED_PROFILE_FIELDS.includes(k.toLowerCase()) && v !== null && v !== undefined && v !== '' ? maskSecret(String(v)) : v;
  }
  return out;
}

/** The Close API answers 403 to an account it was not granted to: say so instead of "forbidden". */
export function explainCloseApiError(err: unknown): unknown {
  if (err instanceof GatewayError && err.status === 403) {
    return new AuthError('the Close API is not granted to this account (403)', {
      details: err.details,
      hint: 'the Close API is private: ask the gateway to enable it for your VA, in each environment',
    });
  }
  return err;
}

/** Data of `banklist`: `{bank: [{id, code, name}]}` (or the list itself). */
export function readBankList(data: unknown): { id?: unknown; code: string; name: string }[] {
  const list = Array.isArray(data) ? data : (data as { bank?: unknown } | null)?.bank;
  if (!Array.isArray(list)) return [];
  return list.filter((b) => b && typeof b === 'object').map((b) => ({ id: b.id, code: String(b.code ?? b.Code ?? ''), name: String(b.name ?? b.Name ?? '') }));
}

/** Data of `business-category`: `[{Code, Name, NameEn}]`. */
export function readBusinessCategories(data: unknown): { code: string; name: string; nameEn: string }[] {
  if (!Array.isArray(data)) return [];
  return data
    .filter((c) => c && typeof c === 'object')
    .map((c) => ({ code: String(c.Code ?? c.code ?? ''), name: String(c.Name ?? c.name ?? ''), nameEn: String(c.NameEn ?? c.name_en ?? '') }));
}
