import type { ServerResponse } from 'node:http';
import { formatJakarta } from '../time.js';
import type { SandboxAccount } from './accounts.js';
import { envelope } from './views.js';
import type { Member, Transfer } from './records.js';

export type { Member, Transfer } from './records.js';

/**
 * The gateway's private Close API in the emulator (docs/merchant-api.md, "Close API"; paths, bodies
 * and answers from the gateway's docs repository, content/close-api/*.mdx). Access is granted per
 * account (`"closeApi": true` in `--accounts`); any other account gets the gateway's 403.
 *
 * - `transferva` moves balance from one of the emulator's accounts to another: the sender is the
 *   caller or one of its child accounts, the receiver any account or registered member; the
 *   sender's settled balance must cover the amount; a repeated `referenceId` of the same caller
 *   is refused with 400 "transaction already exists" (what a third-party client of the gateway
 *   handles), nothing moved twice.
 * - `register` adds a member (an account without an API key, a child of the caller): `{Email, Va, VaName}`.
 * - `profile` answers the documented fields of the caller, a child or a member.
 * - `banklist`, `business-category`: the documented shapes, the banks by their national clearing codes.
 */
export interface CloseDeps {
  accounts: ReadonlyMap<string, SandboxAccount>;
  member(va: string): Member | undefined;
  memberByEmail(email: string): Member | undefined;
  /** What transfers moved to (+) and from (−) a VA. */
  transferNet(va: string): number;
  /** The settled balance of a VA before transfers (its paid payments). */
  paidBalance(va: string): number;
  /**
   * Stores a transfer durably (resolves once stored) with its checks in the same store transaction:
   * a referenceId the caller used before ('exists'), then `covers` ('short'); its id comes from the
   * transaction ids.
   */
  addTransfer(t: Omit<Transfer, 'id'>, covers: () => boolean): Promise<Transfer | 'exists' | 'short'>;
  /** Stores a member durably; false when its VA or e-mail is taken. */
  addMember(m: Member): Promise<boolean>;
  /** A new VA for a member (unique, digits). */
  newVa(): string;
  now(): number;
}

export const CLOSE_ROUTES = ['/api/v2/transferva', '/api/v2/register', '/api/v2/profile', '/api/v2/banklist', '/api/v2/business-category'];

/** The national clearing codes of common banks (Bank Indonesia's list; a part, as the docs' example is). */
const BANKS: readonly [string, string][] = [
  ['002', 'BANK BRI'],
  ['008', 'BANK MANDIRI'],
  ['009', 'BANK BNI'],
  ['011', 'BANK DANAMON'],
  ['013', 'BANK PERMATA'],
  ['014', 'BANK BCA'],
  ['022', 'BANK CIMB NIAGA'],
  ['028', 'BANK OCBC NISP'],
  ['061', 'ANZ Panin Bank'],
  ['129', 'BPD Bali'],
  ['200', 'BANK BTN'],
  ['427', 'BANK BNI SYARIAH'],
  ['451', 'BANK SYARIAH INDONESIA'],
];

/** Business categories: the docs' example entries and a few more in the same form (an assumption). */
const CATEGORIES: readonly [string, string, string][] = [
  ['advertising', 'Advertising', 'Advertising'],
  ['aksesoris_mainan', 'Aksesoris & Mainan', 'Accessories & Toys'],
  ['edukasi', 'Edukasi', 'Education'],
  ['elektronik', 'Elektronik', 'Electronic'],
  ['fashion', 'Fashion', 'Fashion'],
  ['makanan_minuman', 'Makanan & Minuman', 'Food & Beverage'],
  ['jasa', 'Jasa', 'Services'],
  ['lainnya', 'Lainnya', 'Others'],
];

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');

/** The balance a VA can spend: paid payments settled, plus transfers in, minus transfers out. */
export function spendable(d: CloseDeps, va: string): number {
  return d.paidBalance(va) + d.transferNet(va);
}

/** Whether `va` is the caller, one of its child accounts or a member it registered. */
function ownedBy(d: CloseDeps, va: string, caller: SandboxAccount): boolean {
  return va === caller.va || d.accounts.get(va)?.parent === caller.va || d.member(va)?.parent === caller.va;
}

/** Answers a Close API request (after authentication); false when the path is not one of them. */
export async function closeApi(
  d: CloseDeps,
  res: ServerResponse,
  path: string,
  method: string,
  body: Record<string, unknown>,
  caller: SandboxAccount,
): Promise<boolean> {
  const route = path.replace(/\/+$/, '');
  if (!CLOSE_ROUTES.includes(route)) return false;
  if (!caller.closeApi) {
    envelope(res, 403, 'forbidden - this service is not granted to your account', null);
    return true;
  }
  if (method !== 'POST') {
    envelope(res, 405, 'method not allowed', null);
    return true;
  }
  const invalid = (errors: Record<string, string[]>) => envelope(res, 400, 'error - invalid request', null, { Error: errors });
  switch (route) {
    case '/api/v2/banklist':
      envelope(res, 200, 'Success', { bank: BANKS.map(([code, name]) => ({ id: code, code, name })) });
      return true;
    case '/api/v2/business-category':
      envelope(
        res,
        200,
        'Success',
        CATEGORIES.map(([Code, Name, NameEn]) => ({ Code, Name, NameEn })),
      );
      return true;
    case '/api/v2/profile': {
      const va = text(body.account);
      if (!va) invalid({ account: ['account wajib diisi.'] });
      else if (!ownedBy(d, va, caller)) envelope(res, 400, 'Invalid va', null);
      else envelope(res, 200, 'Success', profileOf(d, va));
      return true;
    }
    case '/api/v2/register':
      await register(d, res, body, caller);
      return true;
    default:
      await transfer(d, res, body, caller);
      return true;
  }
}

function profileOf(d: CloseDeps, va: string): Record<string, unknown> {
  const a = d.accounts.get(va);
  const m = d.member(va);
  const balance = spendable(d, va);
  return {
    Name: a?.name ?? m?.name ?? '',
    Email: m?.email ?? '',
    Phone: m?.phone ?? '',
    ApiKey: a?.apiKey ?? '',
    Va: va,
    Gender: '',
    Nik: '',
    Address: '',
    City: '',
    Province: '',
    ZipCode: '',
    Company: a?.name ?? '',
    CompanyEmail: '',
    BusinessPermitNumber: '',
    IsMerchant: a !== undefined || m?.websiteUrl !== undefined,
    MerchantBalance: a ? balance : 0,
    MemberBalance: a ? 0 : balance,
    VerificationStatus: 0,
    VerificationStatusDesc: 'BASIC',
    QrString: '',
    BankName: '',
    BankAccount: '',
    BankNumber: '',
    RegisterDate: formatJakarta(new Date(m?.at ?? 0)),
  };
}

async function register(d: CloseDeps, res: ServerResponse, body: Record<string, unknown>, caller: SandboxAccount): Promise<void> {
  const errors: Record<string, string[]> = {};
  const name = text(body.name);
  const email = text(body.email).toLowerCase();
  const phone = text(body.phone);
  const password = typeof body.password === 'string' ? body.password : '';
  for (const [f, v] of [
    ['name', name],
    ['email', email],
    ['phone', phone],
    ['password', password],
  ] as const)
    if (!v) errors[f] = [`${f} wajib diisi.`];
  if (email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) errors.email = ['email tidak valid.'];
  if (password && password.length < 8) errors.password = ['password minimal 8 karakter.'];
  if (Object.keys(errors).length > 0) {
    envelope(res, 400, 'error - invalid request', null, { Error: errors });
    return;
  }
  const websiteUrl = text(body.website_url);
  const member: Member = { va: d.newVa(), name, email, phone, parent: caller.va, ...(websiteUrl ? { websiteUrl } : {}), at: d.now() };
  if (d.memberByEmail(email) || !(await d.addMember(member))) {
    envelope(res, 400, 'email already registered', null);
    return;
  }
  envelope(res, 200, 'success', { Email: email, Va: member.va, VaName: `IPAYMU - ${name}` });
}

async function transfer(d: CloseDeps, res: ServerResponse, body: Record<string, unknown>, caller: SandboxAccount): Promise<void> {
  const errors: Record<string, string[]> = {};
  const sender = text(body.sender);
  const receiver = text(body.receiver);
  const amountText = text(body.amount);
  const amount = /^\d{1,12}$/.test(amountText) ? Number(amountText) : NaN;
  if (!sender) errors.sender = ['sender wajib diisi.'];
  if (!receiver) errors.receiver = ['receiver wajib diisi.'];
  if (!(amount > 0)) errors.amount = ['amount harus berupa angka lebih dari 0.'];
  if (Object.keys(errors).length > 0) return envelope(res, 400, 'error - invalid request', null, { Error: errors });
  if (!ownedBy(d, sender, caller)) return envelope(res, 400, 'Invalid sender va', null);
  if (receiver === sender || (!d.accounts.has(receiver) && !d.member(receiver))) return envelope(res, 400, 'Invalid receiver va', null);
  const referenceId = text(body.referenceId);
  const relatedId = text(body.relatedId);
  const t = await d.addTransfer(
    { by: caller.va, sender, receiver, amount, referenceId, ...(relatedId ? { relatedId } : {}), notes: text(body.notes), at: d.now() },
    () => spendable(d, sender) >= amount,
  );
  if (t === 'exists') return envelope(res, 400, 'transaction already exists', null);
  if (t === 'short') return envelope(res, 400, 'saldo tidak mencukupi', null);
  const nameOf = (va: string) => d.accounts.get(va)?.name ?? d.member(va)?.email ?? va;
  envelope(res, 200, 'success', {
    TransactionId: t.id,
    ReferenceId: t.referenceId,
    Amount: String(t.amount),
    Fee: 0,
    Sender: nameOf(sender),
    Receiver: nameOf(receiver),
    Notes: t.notes,
  });
}
