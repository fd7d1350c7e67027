import type { Transaction } from './state.js';
import { totalOf } from './views.js';
import { escapeHtml } from '../html.js';
import { buyerPageHead } from './buyer-page.js';
import { formatRupiah } from '../money.js';
import { formatJakarta } from '../time.js';
import { en, LANG_SCRIPT, LANG_SWITCH, STATUS_WORDS } from './page-lang.js';

const esc = escapeHtml;

const rp = formatRupiah;

/** An inline SVG QR code (no external assets). */
async function qrSvg(text: string): Promise<string> {
  const QR = await import('qrcode');
  return QR.toString(text, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
}

/**
 * The hosted payment page at `Url`: merchant, amount, method and channel, the payment number or a
 * QR, an expiry countdown, and buttons to pay or to let it expire. Plain HTML, no external assets;
 * Indonesian, with an English switch (`?lang=en`, see page-lang.ts).
 */
export async function renderPaymentPage(txn: Transaction, merchantName: string, nowMs: number): Promise<string> {
  const qr = txn.qrString ? await qrSvg(txn.qrString) : '';
  const number = txn.via === 'qris' ? '' : txn.paymentNo;
  const pending = txn.status === 'pending';
  const secondsLeft = Math.max(0, Math.floor((txn.expiresAt - nowMs) / 1000));
  return `${buyerPageHead(rp(txn.amount), merchantName, 28, '.number{letter-spacing:.05em} footer{margin-top:1rem;font-size:.75rem;color:#7a8896}')}
<body><main>
${LANG_SWITCH}
<p class="label" ${en('paycli sandbox · test payment, no real money')}>paycli sandbox · pembayaran uji, bukan uang sungguhan</p>
<h1 id="merchant">${esc(merchantName)}</h1>
<div class="amount" id="amount">${esc(rp(totalOf(txn)))}</div>
<p><span class="label" ${en('Method')}>Metode</span> <span id="method">${esc(txn.via)} / ${esc(txn.paymentName)} (${esc(txn.channel)})</span></p>
<p><span class="label" ${en('Transaction')}>Transaksi</span> <span id="trx">${txn.id}</span>${txn.referenceId ? ` · <span class="label" ${en('Reference')}>Referensi</span> ${esc(txn.referenceId)}` : ''}</p>
${number ? `<p class="label" ${en('Payment number')}>Nomor pembayaran</p><p class="number" id="payment-no">${esc(number)}</p>` : ''}
${qr ? `<div class="qr" id="qr">${qr}</div>` : ''}
<p><span class="status ${txn.status}" id="status" ${en(STATUS_WORDS[txn.status]![1])}>${STATUS_WORDS[txn.status]![0]}</span></p>
${
  pending
    ? `<p><span class="label" ${en('Expires')}>Berlaku sampai</span> ${esc(formatJakarta(new Date(txn.expiresAt)))} WIB · <span id="countdown" data-seconds="${secondsLeft}"></span></p>
<form method="post" action="/pay/${txn.id}/pay"><button class="pay" id="pay" type="submit" ${en('Pay')}>Bayar</button></form>
<form method="post" action="/pay/${txn.id}/expire"><button id="expire" type="submit" ${en('Let it expire')}>Biarkan kedaluwarsa</button></form>`
    : ''
}
<footer ${en("Paying here sends the signed callback to the merchant's notifyUrl, as the gateway would.")}>Membayar di sini mengirim callback bertanda tangan ke notifyUrl merchant, seperti yang dilakukan gateway.</footer>
</main>
${LANG_SCRIPT}
<script>
(function(){var el=document.getElementById('countdown');if(!el)return;var s=+el.dataset.seconds;var id=window.paycliLang!=='en';
function f(){var h=Math.floor(s/3600),m=Math.floor(s%3600/60),x=s%60;el.textContent=(s<=0?(id?'kedaluwarsa':'expired'):id?h+'j '+m+'m '+x+'d lagi':h+'h '+m+'m '+x+'s left');if(s>0){s--;setTimeout(f,1000);}}f();})();
</script>
</body></html>`;
}

/** The QR code of a QRIS payment as a PNG (what `QrImage` points at). */
export async function qrPng(text: string): Promise<Buffer> {
  const QR = await import('qrcode');
  return QR.toBuffer(text, { type: 'png', margin: 2, errorCorrectionLevel: 'M', scale: 6 });
}

/** A printable QRIS sheet (what `QrTemplate` points at): merchant, amount and the QR image. */
export function qrTemplate(txn: Transaction, merchantName: string): string {
  return `<!doctype html>
<html lang="id"><head><meta charset="utf-8"><title>QRIS · ${esc(merchantName)} · paycli sandbox</title>
<style>body{font-family:system-ui,sans-serif;text-align:center;padding:2rem} img{width:16rem;height:16rem}</style></head>
<body><h1>QRIS</h1><p id="merchant">${esc(merchantName)}</p><img id="qr" alt="QRIS code" src="/qr/${txn.id}">
<p id="amount">${esc(rp(totalOf(txn)))}</p><p>Transaksi (transaction) ${txn.id} · paycli sandbox, bukan uang sungguhan (no real money)</p></body></html>`;
}
