/**
 * The buyer pages' two languages: Indonesian by default (buyers are Indonesian), English on
 * request. Each text is rendered in Indonesian with its English reading beside it (`data-en`); a
 * small inline script switches when the page is opened with `?lang=en` (or `?lang=id`), remembers
 * the choice for the next pages of the same emulator, and the link in the corner switches back.
 * Nothing is fetched: the pages stay self-contained.
 */

import { escapeHtml } from '../html.js';

const esc = escapeHtml;

/** `data-en="…"`: the English reading of an element whose text is Indonesian. */
export function en(text: string): string {
  return `data-en="${esc(text)}"`;
}

/** An Indonesian text with its English reading, as a span. */
export function tr(id: string, english: string, attrs = ''): string {
  return `<span ${en(english)}${attrs ? ` ${attrs}` : ''}>${esc(id)}</span>`;
}

/** Status words of a transaction: the gateway's own Indonesian ones, and their English. */
export const STATUS_WORDS: Record<string, [string, string]> = {
  pending: ['Menunggu pembayaran', 'Waiting for payment'],
  berhasil: ['Berhasil', 'Paid'],
  unsettled: ['Berhasil', 'Paid'],
  escrow: ['Berhasil (escrow)', 'Paid (escrow)'],
  expired: ['Kedaluwarsa', 'Expired'],
  batal: ['Dibatalkan', 'Cancelled'],
  refund: ['Dikembalikan', 'Refunded'],
  error: ['Error', 'Error'],
  gagal: ['Gagal', 'Failed'],
};

/** Payment methods as the buyer pages name them: Indonesian, and English (payment-rules.ts labels). */
export const METHOD_WORDS: Record<string, [string, string]> = {
  va: ['Virtual Account', 'Virtual account'],
  cstore: ['Gerai ritel', 'Convenience store'],
  cod: ['Bayar di tempat (COD)', 'Cash on delivery'],
  qris: ['QRIS', 'QRIS'],
  cc: ['Kartu kredit', 'Credit card'],
  paylater: ['Bayar nanti', 'Pay later'],
  ewallet: ['Dompet digital', 'E-wallet'],
};

/** The language switch link (top of the page). */
export const LANG_SWITCH = `<p class="lang"><a id="lang" href="?lang=en" ${en('Bahasa Indonesia')}>English</a></p>`;

/** CSS for the switch. */
export const LANG_CSS = '.lang{float:right;margin:0;font-size:.8rem}';

/**
 * Applies the chosen language (`?lang=`, else the remembered choice, else Indonesian) and sets
 * `window.paycliLang` for later scripts (the countdown). Runs at the end of the body.
 */
export const LANG_SCRIPT = `<script>
(function(){var q=new URLSearchParams(location.search).get('lang');var l=q==='en'||q==='id'?q:null;
try{if(l)localStorage.setItem('paycli-lang',l);else l=localStorage.getItem('paycli-lang');}catch(e){}
if(l!=='en')l='id';window.paycliLang=l;if(l!=='en')return;document.documentElement.lang='en';
var t=document.documentElement.getAttribute('data-title-en');if(t)document.title=t;
document.querySelectorAll('[data-en]').forEach(function(e){e.textContent=e.getAttribute('data-en');});
var a=document.getElementById('lang');if(a)a.setAttribute('href','?lang=id');})();
</script>`;
