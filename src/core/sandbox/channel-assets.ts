import { createHash } from 'node:crypto';
import { escapeHtml as esc } from '../html.js';
import { CHANNEL_NAMES, PAYMENT_METHODS } from '../payment-rules.js';
import { FEE_MODEL } from '../fees.js';

/**
 * What the channel list (`GET /api/v2/payment-channels`, `POST /api/v2/payment-method-list`)
 * points at: a logo per channel (a small generated SVG: the channel's name on a colour of its own)
 * and a page of payment instructions per method and channel. The emulator serves both, so that
 * every URL it advertises answers.
 */

const LOGO_PATH = /^\/_sandbox\/assets\/([a-z0-9_]+)\.svg$/;
const INSTRUCTIONS_PATH = /^\/_sandbox\/instructions\/([a-z]+)-([a-z0-9_]+)$/;

export function logoPath(channel: string): string {
  return `/_sandbox/assets/${channel}.svg`;
}

export function instructionsPath(method: string, channel: string): string {
  return `/_sandbox/instructions/${method}-${channel}`;
}

/** How a buyer pays with each method: Indonesian steps with their English reading. */
const STEPS: Record<string, [string, string][]> = {
  va: [
    ['Buka mobile banking, internet banking atau ATM {name}.', 'Open {name} mobile banking, internet banking or an ATM.'],
    ['Pilih Transfer ke Virtual Account.', 'Choose Transfer to Virtual Account.'],
    ['Masukkan nomor pembayaran (Virtual Account) dari halaman pembayaran.', 'Enter the payment number (virtual account) from the payment page.'],
    ['Periksa nama merchant dan jumlahnya, lalu konfirmasi.', 'Check the merchant name and the amount, then confirm.'],
  ],
  cstore: [
    ['Datang ke kasir {name} terdekat.', 'Go to the cashier of a nearby {name}.'],
    ['Sebutkan pembayaran iPaymu dan tunjukkan kode pembayaran.', 'Ask to pay iPaymu and show the payment code.'],
    ['Bayar jumlahnya dan simpan struk sebagai bukti.', 'Pay the amount and keep the receipt as proof.'],
  ],
  qris: [
    ['Buka aplikasi bank atau e-wallet apa pun yang mendukung QRIS.', 'Open any bank or e-wallet app that supports QRIS.'],
    ['Pindai kode QR di halaman pembayaran.', 'Scan the QR code on the payment page.'],
    ['Periksa nama merchant dan jumlahnya, lalu konfirmasi.', 'Check the merchant name and the amount, then confirm.'],
  ],
  ewallet: [
    ['Buka aplikasi {name} di ponsel Anda.', 'Open the {name} app on your phone.'],
    ['Setujui permintaan pembayaran dari iPaymu.', 'Approve the payment request from iPaymu.'],
    ['Masukkan PIN Anda untuk menyelesaikan pembayaran.', 'Enter your PIN to finish the payment.'],
  ],
  cc: [
    ['Masukkan nomor kartu, masa berlaku dan CVV di halaman pembayaran.', 'Enter the card number, expiry date and CVV on the payment page.'],
    ['Selesaikan verifikasi 3-D Secure dari bank Anda.', "Complete your bank's 3-D Secure check."],
  ],
  paylater: [
    ['Pilih {name} di halaman pembayaran dan masuk ke akun Anda.', 'Choose {name} on the payment page and sign in.'],
    ['Pilih tenor cicilan, lalu konfirmasi.', 'Choose the instalment plan, then confirm.'],
  ],
  cod: [
    ['Pesanan dikirim oleh kurir {name}.', 'The order is delivered by the {name} courier.'],
    ['Bayar tunai kepada kurir saat barang diterima.', 'Pay the courier in cash when the goods arrive.'],
  ],
};

/** A logo: the channel's name in white on a colour derived from its code (stable across runs). */
export function channelLogo(channel: string): string {
  const name = CHANNEL_NAMES[channel] ?? channel;
  const hue = createHash('sha256').update(channel).digest()[0]! * (360 / 256);
  const size = name.length > 12 ? 13 : name.length > 8 ? 16 : 20;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="64" viewBox="0 0 160 64" role="img" aria-label="${esc(name)}">
<rect width="160" height="64" rx="10" fill="hsl(${Math.round(hue)},55%,38%)"/>
<text x="80" y="38" text-anchor="middle" font-family="system-ui,sans-serif" font-size="${size}" font-weight="700" fill="#fff">${esc(name)}</text>
</svg>
`;
}

/** The instructions page of a method's channel, or undefined when the channel list has no such pair. */
export function instructionsPage(method: string, channel: string): string | undefined {
  const m = PAYMENT_METHODS.find((x) => x.method === method);
  if (!m?.channels.includes(channel)) return undefined;
  const name = CHANNEL_NAMES[channel] ?? channel;
  const steps = (STEPS[method] ?? [])
    .map(([id, en]) => `<li>${esc(id.replace('{name}', name))}<br><small lang="en">${esc(en.replace('{name}', name))}</small></li>`)
    .join('\n');
  const fee = FEE_MODEL[method];
  const feeText = !fee
    ? ''
    : fee.ActualFeeType === 'FLAT'
      ? `Rp ${fee.ActualFee.toLocaleString('id-ID')}`
      : `${fee.ActualFee}%${fee.AdditionalFee ? ` + Rp ${fee.AdditionalFee.toLocaleString('id-ID')}` : ''}${fee.MinimumFee ? ` (min Rp ${fee.MinimumFee.toLocaleString('id-ID')})` : ''}`;
  return `<!doctype html>
<html lang="id"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cara bayar · ${esc(name)} · paycli sandbox</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1d2733} small{color:#5b6b7b} li{margin:.5rem 0}</style></head>
<body><p><img src="${esc(logoPath(channel))}" alt="${esc(name)}" width="120" height="48"></p>
<h1 id="title">Cara bayar dengan ${esc(name)} <small lang="en">How to pay with ${esc(name)}</small></h1>
<ol id="steps">
${steps}
</ol>
${feeText ? `<p id="fee">Biaya (fee): ${esc(feeText)}</p>` : ''}
<p><small>paycli sandbox: pembayaran uji, bukan uang sungguhan (test payments, no real money). Bayar di halaman pembayaran emulator.</small></p>
</body></html>`;
}

/**
 * The answer to a channel-list asset's path (GET or HEAD; 404 for an unknown channel), or undefined
 * when the path is not one of them.
 */
export function channelAsset(path: string, method: string): { status: number; type: string; body: string } | undefined {
  const logo = LOGO_PATH.exec(path);
  const doc = logo ? null : INSTRUCTIONS_PATH.exec(path);
  if (!logo && !doc) return undefined;
  if (method !== 'GET' && method !== 'HEAD') return { status: 405, type: 'text/plain; charset=utf-8', body: 'use GET\n' };
  if (logo) {
    if (!(logo[1]! in CHANNEL_NAMES)) return { status: 404, type: 'text/plain; charset=utf-8', body: 'no such channel\n' };
    return { status: 200, type: 'image/svg+xml', body: channelLogo(logo[1]!) };
  }
  const page = instructionsPage(doc![1]!, doc![2]!);
  return page === undefined
    ? { status: 404, type: 'text/plain; charset=utf-8', body: 'no such method and channel\n' }
    : { status: 200, type: 'text/html; charset=utf-8', body: page };
}
