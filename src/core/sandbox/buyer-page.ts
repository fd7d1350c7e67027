import { escapeHtml as esc } from '../html.js';
import { LANG_CSS } from './page-lang.js';

/**
 * The head of a buyer page (the direct payment page and the hosted redirect page): title in
 * Indonesian with its English reading, the viewport, and the style both pages share; `extraCss`
 * adds what only one of them needs.
 */
export function buyerPageHead(amount: string, merchantName: string, maxWidthRem: number, extraCss: string): string {
  return `<!doctype html>
<html lang="id" data-title-en="Pay ${esc(amount)} · ${esc(merchantName)} · paycli sandbox"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bayar ${esc(amount)} · ${esc(merchantName)} · paycli sandbox</title>
<style>
body{font-family:system-ui,sans-serif;background:#f4f6f8;margin:0;padding:2rem;color:#1d2733}
main{max-width:${maxWidthRem}rem;margin:auto;background:#fff;border-radius:12px;padding:1.5rem 2rem;box-shadow:0 2px 12px #0002}
h1{font-size:1.1rem;margin:0 0 .25rem} .amount{font-size:2rem;font-weight:700;margin:.5rem 0}
.label{color:#5b6b7b;font-size:.85rem} .number{font-family:ui-monospace,monospace;font-size:1.4rem;word-break:break-all}
.status{display:inline-block;padding:.2rem .6rem;border-radius:99px;font-size:.85rem;background:#eef}
.status.berhasil{background:#d7f5dd;color:#17602a} .status.expired{background:#fde2e2;color:#8a1c1c}
form{display:inline} button{font-size:1rem;padding:.6rem 1.2rem;margin:.5rem .5rem 0 0;border-radius:8px;border:1px solid #888;cursor:pointer}
button.pay{background:#1769e0;color:#fff;border-color:#1769e0} .qr svg{width:14rem;height:14rem}
${extraCss} ${LANG_CSS}
</style></head>`;
}
