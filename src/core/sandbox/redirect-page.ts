import { CHANNEL_NAMES, PAYMENT_METHODS } from '../payment-rules.js';
import { formatRupiah } from '../money.js';
import { formatJakarta } from '../time.js';
import type { RedirectSession } from './redirect-session.js';
import type { Transaction } from './state.js';
import { en, LANG_CSS, LANG_SCRIPT, LANG_SWITCH, STATUS_WORDS, tr } from './page-lang.js';

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const rp = formatRupiah;

/**
 * The hosted page of a redirect payment (`Url` of `POST /api/v2/payment`): the cart, then a choice of
 * method and channel; once chosen, the payment number or QR with buttons to pay or to cancel. Paying
 * sends the signed callback and returns the buyer to `returnUrl`; cancelling goes to `cancelUrl`.
 * Plain HTML, no external assets; Indonesian, with an English switch (`?lang=en`, see page-lang.ts).
 */
export async function renderChoicePage(s: RedirectSession, txn: Transaction | undefined, merchantName: string, nowMs: number): Promise<string> {
  const expired = !txn && s.expiresAt <= nowMs;
  const cart = s.items.map((it) => `<tr><td>${esc(it.product)}${it.description ? `<br><small>${esc(it.description)}</small>` : ''}</td><td>${it.qty} × ${esc(rp(it.price))}</td></tr>`).join('');
  let main: string;
  if (expired) {
    main = `<p><span class="status expired" id="status" ${en(STATUS_WORDS.expired![1])}>${STATUS_WORDS.expired![0]}</span></p>`;
  } else if (!txn) {
    const methods = PAYMENT_METHODS.filter((m) => !s.method || m.method === s.method);
    const options = methods
      .map((m) => `<fieldset><legend>${esc(m.label)}</legend>${m.channels.map((c) => `<label><input type="radio" name="channel" value="${m.method}:${c}" id="ch-${m.method}-${c}" required> ${esc(CHANNEL_NAMES[c] ?? c)}</label>`).join(' ')}</fieldset>`)
      .join('\n');
    // The buyer's details the merchant did not send are asked here, as the gateway's page does.
    const ask = ([['name', 'Nama', 'Name', 'text'], ['phone', 'Nomor HP', 'Phone', 'tel'], ['email', 'Email', 'E-mail', 'email']] as const)
      .filter(([k]) => !s.buyer[k])
      .map(([k, label, english, type]) => `<label>${tr(label, english)} <input name="${k}" id="buyer-${k}" type="${type}" required></label>`)
      .join(' ');
    main = `<form method="post" action="/payment/${s.sid}/choose" id="choose">
${ask ? `<fieldset><legend ${en('Your details')}>Data Anda</legend>${ask}</fieldset>` : ''}
${options}
<button class="pay" id="continue" type="submit" ${en('Continue')}>Lanjut</button></form>
<form method="post" action="/payment/${s.sid}/cancel"><button id="cancel" type="submit" ${en('Cancel')}>Batal</button></form>`;
  } else {
    let how = '';
    if (txn.qrString) {
      const QR = await import('qrcode');
      how = `<div class="qr" id="qr">${await QR.toString(txn.qrString, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' })}</div>`;
    } else if (txn.paymentNo) {
      how = `<p class="label" ${en('Payment number')}>Nomor pembayaran</p><p class="number" id="payment-no">${esc(txn.paymentNo)}</p>`;
    }
    const pending = txn.status === 'pending';
    main = `<p><span class="label" ${en('Method')}>Metode</span> <span id="method">${esc(txn.via)} / ${esc(txn.paymentName)} (${esc(txn.channel)})</span></p>
<p><span class="label" ${en('Transaction')}>Transaksi</span> <span id="trx">${txn.id}</span></p>
${how}
<p><span class="status ${txn.status}" id="status" ${en(STATUS_WORDS[txn.status]![1])}>${STATUS_WORDS[txn.status]![0]}</span></p>
${pending ? `<form method="post" action="/payment/${s.sid}/pay"><button class="pay" id="pay" type="submit" ${en('Pay')}>Bayar</button></form>
<form method="post" action="/payment/${s.sid}/cancel"><button id="cancel" type="submit" ${en('Cancel')}>Batal</button></form>` : ''}
${txn.status === 'berhasil' && s.returnUrl ? `<p><a id="return" href="${esc(s.returnUrl)}" ${en(`Back to ${merchantName}`)}>Kembali ke ${esc(merchantName)}</a></p>` : ''}`;
  }
  return `<!doctype html>
<html lang="id" data-title-en="Pay ${esc(rp(s.amount))} · ${esc(merchantName)} · paycli sandbox"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bayar ${esc(rp(s.amount))} · ${esc(merchantName)} · paycli sandbox</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f6f8;margin:0;padding:2rem;color:#1d2733}
main{max-width:30rem;margin:auto;background:#fff;border-radius:12px;padding:1.5rem 2rem;box-shadow:0 2px 12px #0002}
h1{font-size:1.1rem;margin:0 0 .25rem} .amount{font-size:2rem;font-weight:700;margin:.5rem 0}
.label{color:#5b6b7b;font-size:.85rem} .number{font-family:ui-monospace,monospace;font-size:1.4rem;word-break:break-all}
fieldset{border:1px solid #dde;border-radius:8px;margin:.5rem 0} label{display:inline-block;margin:.2rem .6rem .2rem 0}
.status{display:inline-block;padding:.2rem .6rem;border-radius:99px;font-size:.85rem;background:#eef}
.status.berhasil{background:#d7f5dd;color:#17602a} .status.expired{background:#fde2e2;color:#8a1c1c}
form{display:inline} button{font-size:1rem;padding:.6rem 1.2rem;margin:.5rem .5rem 0 0;border-radius:8px;border:1px solid #888;cursor:pointer}
button.pay{background:#1769e0;color:#fff;border-color:#1769e0} .qr svg{width:14rem;height:14rem} td{padding:.15rem .5rem .15rem 0} ${LANG_CSS}
</style></head>
<body><main>
${LANG_SWITCH}
<p class="label" ${en('paycli sandbox · hosted payment page · test payment, no real money')}>paycli sandbox · halaman pembayaran · pembayaran uji, bukan uang sungguhan</p>
<h1 id="merchant">${esc(merchantName)}</h1>
<div class="amount" id="amount">${esc(rp(s.amount))}</div>
<table id="cart">${cart}</table>
${s.referenceId ? `<p><span class="label">Reference</span> <span id="ref">${esc(s.referenceId)}</span></p>` : ''}
<p class="label" ${en(`Pay before ${formatJakarta(new Date(s.expiresAt))} WIB`)}>Bayar sebelum ${esc(formatJakarta(new Date(s.expiresAt)))} WIB</p>
${main}
</main>
${LANG_SCRIPT}
</body></html>`;
}
