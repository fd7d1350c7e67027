import { randomUUID } from 'node:crypto';
import type { FieldErrors } from '../payment-rules.js';
import { readPaymentRequest, type PaymentRequest } from './validate.js';
import type { SandboxAccount } from './accounts.js';
import type { Transaction } from './state.js';

/** Fee model of the emulator (documented in README): flat for bank and store channels, a rate for the rest. */
export function feeFor(method: string, amount: number): number {
  const fee = (() => {
    switch (method) {
      case 'va':
        return 4000;
      case 'cstore':
        return 5000;
      case 'qris':
        return Math.round(amount * 0.007);
      case 'ewallet':
        return Math.round(amount * 0.015);
      case 'cc':
        return Math.round(amount * 0.029) + 2000;
      case 'paylater':
        return Math.round(amount * 0.017);
      case 'cod':
        return Math.max(5000, Math.round(amount * 0.03));
      default:
        return 0;
    }
  })();
  return Math.min(fee, amount);
}

/** Per-bank VA prefixes; leading zeros are part of the number and kept (docs/gateway.md, "Callbacks"). */
const VA_PREFIX: Record<string, string> = {
  bag: '0098', bca: '8868', bpd_bali: '0129', bni: '8848', cimb: '5919', mandiri: '8950', bmi: '7789',
  bri: '2620', bsi: '9347', permata: '8625', danamon: '7915', btn: '9485',
};

function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

function tlv(tag: string, value: string): string {
  return tag + String(value.length).padStart(2, '0') + value;
}

/** A dynamic QRIS payload (EMVCo merchant-presented, with CRC) for a transaction. */
export function qrisPayload(merchantName: string, amount: number, trxId: number): string {
  const body =
    tlv('00', '01') + tlv('01', '12') +
    tlv('26', tlv('00', 'ID.CO.IPAYMU.WWW') + tlv('01', '936008980000000' + String(trxId).slice(-3)) + tlv('02', String(trxId)) + tlv('03', 'UMI')) +
    tlv('52', '5999') + tlv('53', '360') + tlv('54', String(amount)) + tlv('58', 'ID') +
    tlv('59', merchantName.slice(0, 25)) + tlv('60', 'DENPASAR') + tlv('62', tlv('05', String(trxId)));
  const withCrcTag = body + '6304';
  return withCrcTag + crc16(withCrcTag);
}

/**
 * The payment number of a transaction: VA digits with the bank's prefix (leading zeros kept), a store
 * payment code, a COD airway bill, or the QRIS payload; empty for page-based methods.
 */
export function paymentNumber(method: string, channel: string, id: number, merchantName: string, amount: number): { paymentNo: string; qrString?: string } {
  if (method === 'va') return { paymentNo: (VA_PREFIX[channel] ?? '9999') + String(id).padStart(12, '0') };
  if (method === 'cstore') return { paymentNo: (channel === 'alfamart' ? '8101' : '8102') + String(id).padStart(10, '0') };
  if (method === 'cod') return { paymentNo: 'RPX' + String(id).padStart(10, '0') };
  if (method === 'qris') {
    const qr = qrisPayload(merchantName, amount, id);
    return { paymentNo: qr, qrString: qr };
  }
  return { paymentNo: '' };
}

export type CreateResult = { ok: true; txn: Transaction } | { ok: false; errors: FieldErrors };

/** Builds the transaction of a checked direct-payment request (not yet stored). */
export function buildTransaction(req: PaymentRequest, account: SandboxAccount, id: number, now: number): Transaction {
  const { paymentNo, qrString } = paymentNumber(req.method, req.channel, id, account.name, req.amount);
  return {
    id,
    sid: randomUUID(),
    merchantVa: account.va,
    referenceId: req.referenceId,
    via: req.method,
    channel: req.channel,
    paymentNo,
    paymentName: req.channelName,
    qrString,
    amount: req.amount,
    fee: feeFor(req.method, req.amount),
    ...(req.feeDirection === 'BUYER' ? { feeDirection: 'BUYER' as const } : {}),
    status: 'pending',
    createdAt: now,
    expiresAt: now + req.expiresInMs,
    notifyUrl: req.notifyUrl,
    buyer: { name: req.name, phone: req.phone, email: req.email },
    items: req.items,
    comments: req.comments,
  };
}

/** Reads, checks and builds in one step (for tests and tools); the server reserves the id in between. */
export function createTransaction(raw: Record<string, unknown>, account: SandboxAccount, id: number, now: number): CreateResult {
  const read = readPaymentRequest(raw);
  return read.ok ? { ok: true, txn: buildTransaction(read.request, account, id, now) } : read;
}
