import { CHANNEL_NAMES, PAYMENT_METHODS } from '../payment-rules.js';
import { escapeHtml } from '../html.js';
import { buyerPageHead } from './buyer-page.js';
import { formatRupiah } from '../money.js';
import { formatJakarta } from '../time.js';
import type { RedirectSession } from './redirect-session.js';
import type { Transaction } from './state.js';
import { en, LANG_SCRIPT, LANG_SWITCH, METHOD_WORDS, STATUS_WORDS, tr } from './page-lang.js';

const esc = escapeHtml;

const rp = formatRupiah;

/**
 * The hosted page of a redirect payment (`Url` of `POST /api/v2/payment`): the cart, then a choice of
 * method and channel; once chosen, the payment number or QR with buttons to pay or to cancel. Paying
 * sends the signed callback and returns the buyer to `returnUrl`; cancelling goes to `cancelUrl`.
 * Plain HTML, no external assets; Indonesian, with an English switch (`?lang=en`, see page-lang.ts).
 * `error` (the gateway's Indonesian field error, e.g. `phone tidak valid.`) is shown above the form.
 */
export async function renderChoicePage(s: RedirectSession, txn: Transaction | undefined, merchantName: string, nowMs: number, error?: string): Promise<string> {
  const expired = !txn && s.expiresAt <= nowMs;
  const cart = s.items
    .map(
      (it) =>
        `<tr><td>${esc(it.product)}${it.description ? `<br><small>${esc(it.description)}</small>` : ''}${it.imageUrl ? ` <a href="${esc(it.imageUrl)}" rel="noreferrer noopener" target="_blank" ${en('picture')}>gambar</a>` : ''}</td><td>${it.qty} × ${esc(rp(it.price))}</td></tr>`,
    )
    .join('');
  let main: string;
  if (expired) {
    main = `<p><span class="status expired" id="status" ${en(STATUS_WORDS.expired![1])}>${STATUS_WORDS.expired![0]}</span></p>`;
  } else if (!txn) {
    const methods = PAYMENT_METHODS.filter((m) => !s.method || m.method === s.method);
    const options = methods
      .map(
        (m) =>
          `<fieldset><legend ${en(METHOD_WORDS[m.method]?.[1] ?? m.label)}>${esc(METHOD_WORDS[m.method]?.[0] ?? m.label)}</legend>${m.channels.map((c) => `<label><input type="radio" name="channel" value="${m.method}:${c}" id="ch-${m.method}-${c}" required> ${esc(CHANNEL_NAMES[c] ?? c)}</label>`).join(' ')}</fieldset>`,
      )
      .join('\n');
    // The buyer's details the merchant did not send are asked here, as the gateway's page does.
    const ask = (
      [
        ['name', 'Nama', 'Name', 'text'],
        ['phone', 'Nomor HP', 'Phone', 'tel'],
        ['email', 'Email', 'E-mail', 'email'],
      ] as const
    )
      .filter(([k]) => !s.buyer[k])
      .map(([k, label, english, type]) => `<label>${tr(label, english)} <input name="${k}" id="buyer-${k}" type="${type}" required></label>`)
      .join(' ');
    main = `${error ? `<p class="error" id="error" role="alert" ${en(error.replace(/ tidak valid\.$/, ' is not valid.'))}>${esc(error)}</p>\n` : ''}<form method="post" action="/payment/${s.sid}/choose" id="choose">
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
${
  pending
    ? `<form method="post" action="/payment/${s.sid}/pay"><button class="pay" id="pay" type="submit" ${en('Pay')}>Bayar</button></form>
<form method="post" action="/payment/${s.sid}/cancel"><button id="cancel" type="submit" ${en('Cancel')}>Batal</button></form>`
    : ''
}
${txn.status === 'berhasil' && s.returnUrl ? `<p><a id="return" href="${esc(s.returnUrl)}" ${en(`Back to ${merchantName}`)}>Kembali ke ${esc(merchantName)}</a></p>` : ''}`;
  }
  return `${buyerPageHead(rp(s.amount), merchantName, 30, 'fieldset{border:1px solid #dde;border-radius:8px;margin:.5rem 0} label{display:inline-block;margin:.2rem .6rem .2rem 0} .error{background:#fde2e2;color:#8a1c1c;padding:.5rem .8rem;border-radius:8px} td{padding:.15rem .5rem .15rem 0}')}
<body><main>
${LANG_SWITCH}
<p class="label" ${en('paycli sandbox · hosted payment page · test payment, no real money')}>paycli sandbox · halaman pembayaran · pembayaran uji, bukan uang sungguhan</p>
<h1 id="merchant">${esc(merchantName)}</h1>
<div class="amount" id="amount">${esc(rp(s.amount))}</div>
<table id="cart">${cart}</table>
${s.referenceId ? `<p><span class="label" ${en('Reference')}>Referensi</span> <span id="ref">${esc(s.referenceId)}</span></p>` : ''}
<p class="label" ${en(`Pay before ${formatJakarta(new Date(s.expiresAt))} WIB`)}>Bayar sebelum ${esc(formatJakarta(new Date(s.expiresAt)))} WIB</p>
${main}
</main>
${LANG_SCRIPT}
</body></html>`;
}
