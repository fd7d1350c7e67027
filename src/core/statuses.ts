/**
 * The one table of the gateway's transaction statuses: the check-transaction code, the word a
 * callback's `status` carries, paycli's English gloss, and what a callback of that status says
 * (`status_code`, `transaction_status_code`, `settlement_status`, `is_escrow`). The emulator, its
 * transitions, the ledger (check transaction, history, balance), the CLI's filters and labels, the
 * dashboard and `trigger` all read it. Sources and assumptions: docs/gateway.md, "Statuses".
 */

/** A status as the emulator stores it (one per check-transaction code). */
export type StatusKey = 'pending' | 'berhasil' | 'unsettled' | 'expired' | 'batal' | 'refund' | 'error' | 'gagal' | 'escrow';

export interface StatusInfo {
  key: StatusKey;
  /** Check-transaction `Status` (docs: 0, 1, 2, 3, 4, 5, 6, 7, -2). */
  code: number;
  /** The gateway's word: the callback's `status` field. */
  word: string;
  /** paycli's English gloss. */
  gloss: string;
  /** Check-transaction `StatusDesc`. */
  desc: string;
  /** The callback's `status_code`. */
  statusCode: number;
  /** The callback's `transaction_status_code`. */
  transactionStatusCode: number;
  settlementStatus: 'settled' | 'unsettle';
  isEscrow: boolean;
  /** The buyer's money reached the gateway and stays with the merchant (PaidStatus `paid`, `paid_off` > 0). */
  paid: boolean;
  /** Where the net amount counts in the balance: available, not yet settled, held in escrow, or nowhere. */
  balance: 'available' | 'unsettled' | 'escrow' | 'none';
  /** Whether the callback's values are documented (false: an assumption, see docs/gateway.md). */
  documented: boolean;
}

const row = (
  key: StatusKey,
  code: number,
  word: string,
  gloss: string,
  desc: string,
  tsc: number,
  settled: boolean,
  escrow: boolean,
  paid: boolean,
  balance: StatusInfo['balance'],
  documented: boolean,
  statusCode = code,
): StatusInfo => ({
  key,
  code,
  word,
  gloss,
  desc,
  statusCode,
  transactionStatusCode: tsc,
  settlementStatus: settled ? 'settled' : 'unsettle',
  isEscrow: escrow,
  paid,
  balance,
  documented,
});

/** Every status, in the docs' order. */
export const STATUSES: readonly StatusInfo[] = [
  row('pending', 0, 'pending', 'pending', 'Pending', 0, false, false, false, 'none', true),
  row('berhasil', 1, 'berhasil', 'paid', 'Berhasil', 1, true, false, true, 'available', true),
  row('batal', 2, 'batal', 'cancelled', 'Dibatalkan', 2, false, false, false, 'none', false),
  row('refund', 3, 'refund', 'refunded', 'Refund', 3, false, false, false, 'none', false),
  row('error', 4, 'error', 'error', 'Error', 4, false, false, false, 'none', false),
  row('gagal', 5, 'gagal', 'failed', 'Gagal', 5, false, false, false, 'none', false),
  // Paid, settled later: a `berhasil` callback with status_code 1 and transaction_status_code 6 (docs).
  row('unsettled', 6, 'berhasil', 'paid, settles later', 'Berhasil - Belum Settlement', 6, false, false, true, 'unsettled', true, 1),
  row('escrow', 7, 'escrow', 'paid, held in escrow', 'Escrow', 7, false, true, true, 'escrow', false),
  row('expired', -2, 'expired', 'expired', 'Expired', -2, false, false, false, 'none', true),
];

const BY_KEY = new Map(STATUSES.map((s) => [s.key, s]));
const BY_CODE = new Map(STATUSES.map((s) => [s.code, s]));

export const STATUS_KEYS: readonly StatusKey[] = STATUSES.map((s) => s.key);

export function isStatusKey(v: unknown): v is StatusKey {
  return typeof v === 'string' && BY_KEY.has(v as StatusKey);
}

export function statusInfo(key: StatusKey): StatusInfo {
  return BY_KEY.get(key)!;
}

export function statusByCode(code: number): StatusInfo | undefined {
  return BY_CODE.get(code);
}

/** One label everywhere: the gateway's word, and the gloss when it says more (`berhasil (paid)`). */
export function statusLabel(s: StatusInfo): string {
  return s.word === s.gloss ? s.word : `${s.word} (${s.gloss})`;
}

/** The label of a check-transaction code (`status 9` for a code no source lists). */
export function labelOfCode(code: number): string {
  const s = BY_CODE.get(code);
  return s ? statusLabel(s) : `status ${code}`;
}

/** What users type for a status: the key, the gateway's word, the gloss, older paycli words, the code. */
const ALIASES: Record<string, StatusKey> = {
  paid: 'berhasil',
  success: 'berhasil',
  settled: 'berhasil',
  'paid-unsettled': 'unsettled',
  unsettle: 'unsettled',
  deferred: 'unsettled',
  cancelled: 'batal',
  canceled: 'batal',
  dibatalkan: 'batal',
  cancel: 'batal',
  refunded: 'refund',
  failed: 'gagal',
  fail: 'gagal',
  held: 'escrow',
};

/** A status from a word or code; undefined when it is none of them. Note: `berhasil` is 1 (settled). */
export function parseStatus(text: string): StatusInfo | undefined {
  const t = text.trim().toLowerCase();
  if (/^-?\d+$/.test(t)) return BY_CODE.get(Number(t));
  const key = BY_KEY.has(t as StatusKey) ? (t as StatusKey) : ALIASES[t];
  return key ? BY_KEY.get(key) : undefined;
}

/** What `--status` accepts, for help and errors. */
export const STATUS_CHOICES =
  'pending, berhasil|paid, unsettled, expired, batal|cancelled, refund, error, gagal|failed, escrow, or a code (0, 1, 2, 3, 4, 5, 6, 7, -2)';

// ── Transitions ────────────────────────────────────────────────────────────────────────────────

/** What moves a payment: the buyer or an admin (pay, cancel…), or the clock (expire, settle). */
export type Action = 'pay' | 'expire' | 'cancel' | 'fail' | 'error' | 'refund' | 'settle' | 'release';

export const ACTIONS: readonly Action[] = ['pay', 'expire', 'cancel', 'fail', 'error', 'refund', 'settle', 'release'];

export function isAction(v: unknown): v is Action {
  return typeof v === 'string' && (ACTIONS as readonly string[]).includes(v);
}

/**
 * The allowed transitions, as data: for each action, the statuses it may start from. Where it goes
 * is `targetOf` (pay and release depend on the payment's escrow flag and the settlement mode).
 * Everything else is refused with a 409 and `refusal`'s reason.
 */
export const ALLOWED_FROM: Record<Action, readonly StatusKey[]> = {
  pay: ['pending'],
  expire: ['pending'],
  cancel: ['pending'],
  fail: ['pending'],
  error: ['pending'],
  refund: ['berhasil', 'unsettled', 'escrow'],
  settle: ['unsettled'],
  release: ['escrow'],
};

/** The status an action leads to. */
export function targetOf(action: Action, opts: { escrow?: boolean; settlement?: 'immediate' | 'deferred' }): StatusKey {
  const paid: StatusKey = opts.settlement === 'deferred' ? 'unsettled' : 'berhasil';
  switch (action) {
    case 'pay':
      return opts.escrow ? 'escrow' : paid;
    case 'release':
      return paid;
    case 'expire':
      return 'expired';
    case 'cancel':
      return 'batal';
    case 'fail':
      return 'gagal';
    case 'error':
      return 'error';
    case 'refund':
      return 'refund';
    case 'settle':
      return 'berhasil';
  }
}

const WHAT: Record<Action, string> = {
  pay: 'be paid',
  expire: 'expire',
  cancel: 'be cancelled',
  fail: 'fail',
  error: 'end in error',
  refund: 'be refunded',
  settle: 'be settled',
  release: 'be released from escrow',
};

/** Why an action is refused from this status (undefined: allowed). */
export function refusal(action: Action, from: StatusKey, id: number | string): string | undefined {
  const allowed = ALLOWED_FROM[action];
  if (allowed.includes(from)) return undefined;
  const s = statusInfo(from);
  const need = allowed.map((k) => statusLabel(statusInfo(k))).join(' or ');
  return `transaction ${id} ${from === 'expired' ? 'has expired' : `is ${statusLabel(s)}`} and cannot ${WHAT[action]} (status ${s.code}; only a ${need} payment can)`;
}
