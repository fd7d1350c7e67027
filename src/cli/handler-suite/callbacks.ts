import {
  encodeFormBody,
  encodeJsonCallbackBody,
  externalId,
  signCallbackRequest,
  type JsonCallbackShape,
  type SignedCallback,
} from '../../core/callback/build.js';
import { sampleCallbackFields } from '../../core/callback/sample.js';
import type { CallbackStatus } from '../../core/payment-rules.js';
import type { Shape } from './suite.js';

/** The check-transaction codes a callback can carry besides 1, 0 and -2 (docs/gateway.md, "Statuses in callbacks"). */
export type GatewayCode = 2 | 3 | 4 | 5 | 6 | 7;
export const CODE_NAMES: Record<GatewayCode, string> = { 2: 'cancelled', 3: 'refund', 4: 'error', 5: 'failed', 6: 'paid, settled later', 7: 'escrow' };

/**
 * A paid callback's fields turned into one carrying another gateway status. 6 and 7 are paid
 * (`status` berhasil, `status_code` 1; 6 `unsettle`, 7 `is_escrow` true); 2 to 5 carry their code
 * in `status_code` and `transaction_status_code` and the gateway's word in `status`, no money paid
 * off (the gateway's callback documents only berhasil/pending/expired: see docs/gateway.md).
 */
export function withGatewayCode(paid: Record<string, string>, code: GatewayCode): Record<string, string> {
  const f: Record<string, string> = { ...paid, transaction_status_code: String(code), settlement_status: 'unsettle' };
  if (code === 7) f.is_escrow = 'true';
  if (code === 6 || code === 7) return f;
  const word: Record<number, string> = { 2: 'batal', 3: 'refund', 4: 'error', 5: 'gagal' };
  return { ...f, status: word[code]!, status_code: String(code), paid_off: '0', ...(code === 3 ? {} : { paid_at: '' }) };
}

/** Text that handlers written with JSON.stringify (no `\/`, no `\uXXXX`) or a naive form decoder get wrong. */
export function withSpecialCharacters(fields: Record<string, string>): Record<string, string> {
  return { ...fields, buyer_name: 'Nyoman Ö Ñáñez 😀', system_notes: `a/b & c+d = 100% "ok" 'fine' <tag> é` };
}

/** Signs callbacks for the suite: VA-signed, a fresh X-External-ID each, in the shape of the check. */
export class CallbackMaker {
  private seq = 0;

  constructor(
    private readonly va: string,
    private readonly now: () => Date,
    private readonly sample: { method: string; channel: string; url: string },
  ) {}

  private split(shape: Shape): { format: 'form' | 'json'; json: JsonCallbackShape } {
    return { format: shape === 'form' ? 'form' : 'json', json: shape === 'json-strings' ? 'strings' : 'typed' };
  }

  /** A made-up transaction's callback (a trx id no merchant created). */
  sampleFields(status: CallbackStatus, settlement?: 'immediate' | 'deferred', trxId?: number): Record<string, string> {
    return sampleCallbackFields({ status, method: this.sample.method, channel: this.sample.channel, now: this.now(), url: this.sample.url, settlement, trxId });
  }

  sign(fields: Record<string, string>, shape: Shape): SignedCallback {
    const now = this.now();
    const { format, json } = this.split(shape);
    return signCallbackRequest(fields, this.va, format, now, externalId(now, ++this.seq), json);
  }

  make(status: CallbackStatus, shape: Shape, settlement?: 'immediate' | 'deferred'): SignedCallback {
    return this.sign(this.sampleFields(status, settlement), shape);
  }

  /** The same body and signature with a new X-External-ID: a retry of the same callback. */
  again(c: SignedCallback): SignedCallback {
    return { ...c, headers: { ...c.headers, 'X-External-ID': externalId(this.now(), ++this.seq) } };
  }

  encode(fields: Record<string, string>, shape: Shape): string {
    return shape === 'form' ? encodeFormBody(fields) : encodeJsonCallbackBody(fields, this.split(shape).json);
  }
}
