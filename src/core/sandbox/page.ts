import type { Transaction } from './state.js';
import { formatRupiah } from '../money.js';
import { formatJakarta } from '../time.js';
import { en, LANG_CSS, LANG_SCRIPT, LANG_SWITCH, STATUS_WORDS } from './page-lang.js';

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

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
  return `<!doctype html>
<html lang="id" data-title-en="Pay ${esc(rp(txn.amount))} · ${esc(merchantName)} · paycli sandbox"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bayar ${esc(rp(txn.amount))} · ${esc(merchantName)} · paycli sandbox</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f6f8;margin:0;padding:2rem;color:#1d2733}
main{max-width:28rem;margin:auto;background:#fff;border-radius:12px;padding:1.5rem 2rem;box-shadow:0 2px 12px #0002}
h1{font-size:1.1rem;margin:0 0 .25rem} .amount{font-size:2rem;font-weight:700;margin:.5rem 0}
.label{color:#5b6b7b;font-size:.85rem} .number{font-family:ui-monospace,monospace;font-size:1.4rem;letter-spacing:.05em;word-break:break-all}
.status{display:inline-block;padding:.2rem .6rem;border-radius:99px;font-size:.85rem;background:#eef}
.status.berhasil{background:#d7f5dd;color:#17602a} .status.expired{background:#fde2e2;color:#8a1c1c}
form{display:inline} button{font-size:1rem;padding:.6rem 1.2rem;margin:.5rem .5rem 0 0;border-radius:8px;border:1px solid #888;cursor:pointer}
button.pay{background:#1769e0;color:#fff;border-color:#1769e0} .qr svg{width:14rem;height:14rem}
footer{margin-top:1rem;font-size:.75rem;color:#7a8896} ${LANG_CSS}
</style></head>
<body><main>
${LANG_SWITCH}
<p class="label" ${en('paycli sandbox · test payment, no real money')}>paycli sandbox · pembayaran uji, bukan uang sungguhan</p>
<h1 id="merchant">${esc(merchantName)}</h1>
<div class="amount" id="amount">${esc(rp(txn.amount + (txn.feeDirection === 'BUYER' ? txn.fee : 0)))}</div>
<p><span class="label" ${en('Method')}>Metode</span> <span id="method">${esc(txn.via)} / ${esc(txn.paymentName)} (${esc(txn.channel)})</span></p>
<p><span class="label" ${en('Transaction')}>Transaksi</span> <span id="trx">${txn.id}</span>${txn.referenceId ? ` · <span class="label" ${en('Reference')}>Referensi</span> ${esc(txn.referenceId)}` : ''}</p>
${number ? `<p class="label" ${en('Payment number')}>Nomor pembayaran</p><p class="number" id="payment-no">${esc(number)}</p>` : ''}
${qr ? `<div class="qr" id="qr">${qr}</div>` : ''}
<p><span class="status ${txn.status}" id="status" ${en(STATUS_WORDS[txn.status]![1])}>${STATUS_WORDS[txn.status]![0]}</span></p>
${pending ? `<p><span class="label" ${en('Expires')}>Berlaku sampai</span> ${esc(formatJakarta(new Date(txn.expiresAt)))} WIB · <span id="countdown" data-seconds="${secondsLeft}"></span></p>
<form method="post" action="/pay/${txn.id}/pay"><button class="pay" id="pay" type="submit" ${en('Pay')}>Bayar</button></form>
<form method="post" action="/pay/${txn.id}/expire"><button id="expire" type="submit" ${en('Let it expire')}>Biarkan kedaluwarsa</button></form>` : ''}
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
<p id="amount">${esc(rp(txn.amount + (txn.feeDirection === 'BUYER' ? txn.fee : 0)))}</p><p>Transaksi (transaction) ${txn.id} · paycli sandbox, bukan uang sungguhan (no real money)</p></body></html>`;
}
