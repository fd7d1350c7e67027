/** Per-bank VA prefixes; leading zeros are part of the number and kept (docs/gateway.md, "Callbacks"). */
const VA_PREFIX: Record<string, string> = {
  bag: '0098',
  bca: '8868',
  bpd_bali: '0129',
  bni: '8848',
  cimb: '5919',
  mandiri: '8950',
  bmi: '7789',
  bri: '2620',
  bsi: '9347',
  permata: '8625',
  danamon: '7915',
  btn: '9485',
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
    tlv('00', '01') +
    tlv('01', '12') +
    tlv('26', tlv('00', 'ID.CO.IPAYMU.WWW') + tlv('01', '936008980000000' + String(trxId).slice(-3)) + tlv('02', String(trxId)) + tlv('03', 'UMI')) +
    tlv('52', '5999') +
    tlv('53', '360') +
    tlv('54', String(amount)) +
    tlv('58', 'ID') +
    tlv('59', merchantName.slice(0, 25)) +
    tlv('60', 'DENPASAR') +
    tlv('62', tlv('05', String(trxId)));
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
