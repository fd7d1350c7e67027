import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { escapeHtml } from '../html.js';
import { formatRupiah } from '../money.js';

export { LiveHub } from './live-hub.js';

/**
 * Pieces shared by the emulator's dashboard and `paycli listen --ui`: HTML escaping, the page
 * layout (inline CSS and a little inline JavaScript, no external assets), the checks that keep the
 * pages local and their actions CSRF-safe, and a server-sent-events hub for live updates
 * (`live-hub.ts`).
 */

export const esc = escapeHtml;
export const rupiah = formatRupiah;

/** A status badge: its class names the colour (ok, bad, retry, a status key), its text says it. */
export function badge(cls: string, label = cls): string {
  return `<span class="badge ${esc(cls)}">${esc(label)}</span>`;
}

/** Whether a socket's local address is a loopback one (127.0.0.0/8, ::1, or their v4-mapped form). */
export function isLoopbackAddress(addr: string | undefined): boolean {
  if (!addr) return false;
  const a = addr.startsWith('::ffff:') ? addr.slice(7) : addr;
  return /^127\.\d+\.\d+\.\d+$/.test(a) || a === '::1';
}

/** Whether a Host header names this machine by a loopback address or `localhost` (not a rebound DNS name). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d+$/, '');
  return name === 'localhost' || isLoopbackAddress(name);
}

/**
 * Header fields a reverse proxy or tunnel adds (ngrok, cloudflared, Tailscale Funnel, nginx): a
 * request that carries one was relayed for someone else, even when the relay connects from
 * 127.0.0.1 and rewrites Host to `localhost` (ngrok `--host-header=rewrite`).
 */
const RELAY_HEADERS = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  'cf-connecting-ip',
  'true-client-ip',
  'x-original-host',
  'via',
];

/**
 * Why a page request must be refused, or undefined: the pages (dashboard, `listen --ui`) are served
 * only to a peer on this machine (the socket's remote address is a loopback one) that reached a
 * loopback address, names it in Host (a DNS-rebinding page cannot read them), and came directly,
 * not through a proxy or tunnel that relays the public's requests from loopback.
 */
export function pageRefusal(req: IncomingMessage): string | undefined {
  if (!isLoopbackAddress(req.socket.localAddress)) return 'the dashboard is served on loopback addresses only';
  if (!isLoopbackAddress(req.socket.remoteAddress))
    return `the dashboard answers only to this machine, not to ${req.socket.remoteAddress ?? 'an unknown peer'}`;
  if (!isLoopbackHost(req.headers.host)) return `the dashboard answers only to a loopback Host, not "${req.headers.host ?? ''}"`;
  const relayed = RELAY_HEADERS.find((h) => req.headers[h] !== undefined);
  if (relayed) return `the dashboard does not answer requests relayed by a proxy or tunnel (${relayed} header)`;
  return undefined;
}

/** A Host header's name: lower case, without port, brackets or a final dot. */
function hostName(host: string): string {
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d*$/, '');
  return name.toLowerCase().replace(/\.$/, '');
}

/**
 * Why a request must be refused for its Host, or undefined: the rule against DNS rebinding, for
 * every route of a local server. A rebinding page reaches the server under a name its attacker's DNS
 * points at 127.0.0.1; names that no public DNS can answer are safe: IP literals, `localhost` and
 * `*.localhost` (RFC 6761), `*.internal` (reserved for private use: `host.docker.internal`,
 * `host.containers.internal`), and the names given in `allowed` (the address the server was told
 * to listen on, hosts its user allowed). No Host at all (HTTP/1.0, no browser) passes.
 */
export function hostRefusal(host: string | undefined, allowed: Iterable<string> = []): string | undefined {
  if (host === undefined) return undefined;
  const name = hostName(host);
  if (isIP(name) || name === 'localhost' || name.endsWith('.localhost') || name.endsWith('.internal')) return undefined;
  for (const a of allowed) if (hostName(a) === name) return undefined;
  return `Host "${host}" refused: the emulator answers only to IP addresses, localhost and the names it was given (DNS rebinding)`;
}

/**
 * Why a browser's state-changing request comes from another site, or undefined. Requests without
 * Origin and Sec-Fetch-Site (the CLI, curl) pass; a browser's must come from a page of this origin.
 */
export function crossSiteRefusal(req: IncomingMessage): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') return `cross-site request refused (Sec-Fetch-Site: ${site})`;
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${req.headers.host}`) return `cross-origin request refused (Origin: ${origin})`;
  return undefined;
}

/**
 * Why a state-changing request of the dashboard's must be refused, or undefined: crossSiteRefusal,
 * and a browser's must come from the page's own loopback origin.
 */
export function actionRefusal(req: IncomingMessage): string | undefined {
  const cross = crossSiteRefusal(req);
  if (cross) return cross;
  if (req.headers.origin !== undefined && !isLoopbackHost(req.headers.host)) return `cross-origin request refused (Origin: ${req.headers.origin})`;
  return undefined;
}

/** Headers of pages that must not be framed by another site (clickjacking): the buyer's pages. */
export const NO_FRAMING_HEADERS = { 'x-frame-options': 'DENY', 'content-security-policy': "frame-ancestors 'none'" } as const;

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  // Inline style and script only; no other origin is ever contacted.
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html), ...SECURITY_HEADERS });
  res.end(html);
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), ...SECURITY_HEADERS });
  res.end(text);
}

export const CSS = `
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f3f5f8;color:#1b2430}
header.top{background:#13233a;color:#fff;padding:.7rem 1.2rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header.top a{color:#fff;text-decoration:none;font-weight:600}
header.top .sub{color:#a9b8cc;font-size:.85rem}
header.top .live{margin-left:auto;font-size:.8rem;color:#a9b8cc}
header.top .live.on::before{content:"";display:inline-block;width:.55rem;height:.55rem;border-radius:50%;background:#3ccf6e;margin-right:.35rem}
main{max-width:72rem;margin:0 auto;padding:1rem 1.2rem 3rem}
h1{font-size:1.35rem;margin:.6rem 0}
h2{font-size:1.05rem;margin:1.6rem 0 .6rem}
a{color:#1558c0}
.card{background:#fff;border-radius:10px;box-shadow:0 1px 4px #0001;padding:.9rem 1.1rem;margin:.8rem 0}
table{width:100%;border-collapse:collapse;background:#fff;border-radius:10px;overflow:hidden;box-shadow:0 1px 4px #0001}
th,td{text-align:left;padding:.5rem .7rem;border-bottom:1px solid #e7ebf0;vertical-align:top}
th{font-size:.78rem;text-transform:uppercase;letter-spacing:.04em;color:#5b6878;background:#fafbfc}
td.num{text-align:right;white-space:nowrap}
tbody tr:hover{background:#f7f9fc}
.mono,pre,code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.84rem}
pre{background:#0f1b2b;color:#e4ecf6;padding:.7rem .8rem;border-radius:8px;overflow:auto;white-space:pre-wrap;word-break:break-all;margin:.4rem 0}
.badge{display:inline-block;padding:.1rem .55rem;border-radius:99px;font-size:.8rem;font-weight:600;background:#e6ebf2;color:#34445a;white-space:nowrap}
.badge.pending{background:#fff2cc;color:#7a5600}
.badge.berhasil,.badge.delivered,.badge.valid,.badge.ok{background:#d5f5de;color:#146b32}
.badge.expired,.badge.failed,.badge.invalid,.badge.malformed,.badge.bad{background:#fde0e0;color:#8c1d1d}
.badge.valid-variant,.badge.retry{background:#fff2cc;color:#7a5600}
.muted{color:#6a7888;font-size:.85rem}
form.filters{display:flex;gap:.6rem;flex-wrap:wrap;align-items:end;margin:.4rem 0 .8rem}
form.filters label{display:flex;flex-direction:column;font-size:.78rem;color:#5b6878}
select,input[type=url],input[type=text]{font:inherit;padding:.35rem .5rem;border:1px solid #c4ccd6;border-radius:6px;background:#fff}
button{font:inherit;padding:.45rem 1rem;border-radius:7px;border:1px solid #8a96a6;background:#fff;cursor:pointer}
button.primary{background:#1769e0;border-color:#1769e0;color:#fff}
button.danger{border-color:#c23b3b;color:#a12525}
button:disabled{opacity:.5;cursor:default}
.actions{display:flex;gap:.5rem;flex-wrap:wrap;margin:.6rem 0}
.flash{padding:.5rem .8rem;border-radius:8px;margin:.5rem 0;background:#e8f0fe}
.flash.error{background:#fde0e0;color:#8c1d1d}
dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dl.fields dt{color:#5b6878;font-size:.85rem}
dl.fields dd{margin:0;word-break:break-all}
.attempt{border-left:4px solid #c4ccd6;padding-left:.8rem;margin:.9rem 0}
.attempt.ok{border-color:#35b564}.attempt.bad{border-color:#d64545}
.attempt .line{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}
.url{word-break:break-all}
details{margin:.3rem 0}
summary{cursor:pointer;color:#1558c0;font-size:.9rem}
.empty{padding:2rem;text-align:center;color:#6a7888;background:#fff;border-radius:10px}
@media (max-width:640px){
  body{font-size:14px}
  header.top .sub{display:none}
  main{padding:.6rem .6rem 2rem}
  table,thead,tbody,tr,td{display:block;width:100%}
  thead{display:none}
  table{background:transparent;box-shadow:none}
  tbody tr{background:#fff;border-radius:10px;box-shadow:0 1px 4px #0001;margin:.6rem 0;padding:.4rem .2rem}
  td{border:0;padding:.2rem .7rem;display:flex;justify-content:space-between;gap:1rem;text-align:right}
  td.num{text-align:right}
  td::before{content:attr(data-label);color:#5b6878;font-size:.78rem;text-transform:uppercase;text-align:left}
  dl.fields{grid-template-columns:1fr}
  dl.fields dt{margin-top:.35rem}
}
`;

/**
 * Live updates: on every server-sent event the page fetches itself again and swaps the `#live`
 * element (open <details> stay open). Actions: a button with data-post POSTs to that URL (the
 * same admin API the CLI uses) and shows the answer.
 */
export const CLIENT_JS = `
(function(){
  var live=document.getElementById('live'), dot=document.getElementById('live-state');
  function openIds(){var s={};document.querySelectorAll('details[id]').forEach(function(d){if(d.open)s[d.id]=1});return s;}
  var busy=false, again=false;
  function refresh(){
    if(!live)return; if(busy){again=true;return;} busy=true;
    fetch(location.href,{headers:{accept:'text/html'}}).then(function(r){return r.text();}).then(function(t){
      var doc=new DOMParser().parseFromString(t,'text/html'), next=doc.getElementById('live');
      if(next){var open=openIds();live.innerHTML=next.innerHTML;Object.keys(open).forEach(function(id){var d=document.getElementById(id);if(d)d.open=true;});
        document.body.dataset.version=String((+document.body.dataset.version||0)+1);}
    }).catch(function(){}).then(function(){busy=false;if(again){again=false;refresh();}});
  }
  var src=document.body.dataset.events;
  if(src&&window.EventSource){var es=new EventSource(src);
    es.onopen=function(){if(dot){dot.classList.add('on');dot.textContent='live';}};
    es.onerror=function(){if(dot){dot.classList.remove('on');dot.textContent='reconnecting…';}};
    es.onmessage=refresh;}
  document.addEventListener('click',function(ev){
    var b=ev.target.closest&&ev.target.closest('button[data-post]'); if(!b)return; ev.preventDefault();
    var flash=document.getElementById('flash'), body=null, headers={accept:'application/json'};
    if(b.dataset.input){var inp=document.getElementById(b.dataset.input);body=JSON.stringify({to:inp?inp.value:''});headers['content-type']='application/json';}
    b.disabled=true;
    fetch(b.dataset.post,{method:'POST',headers:headers,body:body}).then(function(r){return r.json().then(function(j){return {ok:r.ok,j:j};});}).then(function(x){
      if(flash){flash.hidden=false;flash.className='flash'+(x.ok?'':' error');flash.textContent=x.j.message||x.j.error||(x.ok?'done':'failed');}
      refresh();
    }).catch(function(e){if(flash){flash.hidden=false;flash.className='flash error';flash.textContent=String(e);}}).then(function(){b.disabled=false;});
  });
})();
`;

export interface LayoutOptions {
  title: string;
  /** What the header calls this tool. */
  brand: string;
  home: string;
  /** The server-sent-events URL for live updates. */
  events: string;
  /** Rendered inside `#live`, swapped on every update. */
  live: string;
  /** Rendered before `#live` (filters, actions: not swapped). */
  head?: string;
}

export function layout(o: LayoutOptions): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(o.title)}</title><link rel="icon" href="data:,"><style>${CSS}</style></head>
<body data-events="${esc(o.events)}">
<header class="top"><a href="${esc(o.home)}">${esc(o.brand)}</a><span class="sub">local only · no real money</span><span class="live" id="live-state">static</span></header>
<main>
${o.head ?? ''}
<div class="flash" id="flash" role="status" hidden></div>
<div id="live">
${o.live}
</div>
</main>
<script>${CLIENT_JS}</script>
</body></html>`;
}
