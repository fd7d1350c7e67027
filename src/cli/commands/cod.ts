import { constants, openSync, writeSync, closeSync, fstatSync, ftruncateSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  COD_ROUTES,
  codRequest,
  pickupParams,
  rateParams,
  readCodAreas,
  readCodRates,
  readCodTracking,
  transactionId,
  type CodArea,
  type CodOperation,
  type CodParams,
  type CodRate,
} from '../../core/api/cod.js';
import { GatewayError, UsageError } from '../../core/errors.js';
import { fsError } from '../../core/fs-errors.js';
import type { HttpResponse } from '../../core/http/client.js';
import { parseEnvelope } from '../../core/http/envelope.js';
import type { CommandEnv, Handler } from '../command-env.js';
import { apiFlags, examples, type Define } from '../command-kit.js';
import { rupiah } from '../output.js';
import { withSpinner } from '../spinner.js';
import { topCommand } from './heads.js';

/**
 * Sends one COD operation along its routes in order (core/api/cod.ts), moving on when a path
 * answers 404 or 405; `--debug` says which path answered. Null after --dry-run/--curl printed the
 * first route's request.
 */
async function sendCod(env: CommandEnv, op: CodOperation, params: CodParams): Promise<{ res: HttpResponse; url: string } | null> {
  const { session, opts } = env;
  const routes = COD_ROUTES[op];
  const tried: string[] = [];
  return withSpinner(env, `COD ${op}`, async () => {
    for (const route of routes) {
      const r = codRequest(route, params);
      const req = await session.signed(r.method, r.path, r.signed);
      req.body = r.body;
      if (tried.length === 0 && (await session.preview(req))) return null;
      const http = await (await session.api()).http();
      const res = await http.send({ method: req.method, url: req.url, headers: req.headers, body: req.body, signal: env.ctx.interrupts() });
      tried.push(`${r.method} ${route.path} (${route.source}): ${res.status}`);
      if (res.status === 404 || res.status === 405) continue;
      // --debug says which path answered, in JSON mode too (stderr).
      if (opts.debug) env.ctx.stderr.write(`debug: COD ${op}: ${tried.join('; ')}\n`);
      return { res, url: req.url };
    }
    throw new GatewayError(404, `no COD ${op} path answered: ${tried.join('; ')}`, {
      hint: 'this gateway may not offer COD logistics to your account; check --base-url',
    });
  });
}

/** The answer's envelope as data, its failures as typed errors (3, 4, 5). */
function envelopeData(res: HttpResponse, url: string): unknown {
  return parseEnvelope<unknown>(res, url).Data;
}

/** The areas a search finds (null on --dry-run): the `cod area` command's request, for `pay`'s prompt too. */
export async function findAreas(env: CommandEnv, query: string): Promise<CodArea[] | null> {
  if (query.trim().length < 3) throw new UsageError('give at least 3 characters to search areas (a district, city or postal code)');
  const sent = await sendCod(env, 'area', { area: query.trim() });
  if (!sent) return null;
  // An error answer comes in the usual envelope; a success in the area search's own lower-case one.
  if (sent.res.status >= 400) envelopeData(sent.res, sent.url);
  return readCodAreas(sent.res.status, sent.res.text);
}

/** The services and prices for a parcel (null on --dry-run): the `cod rate` command's request, for `pay`'s prompt too. */
export async function findRates(env: CommandEnv, params: CodParams): Promise<CodRate[] | null> {
  const sent = await sendCod(env, 'rate', params);
  return sent && readCodRates(envelopeData(sent.res, sent.url));
}

/** `paycli cod area QUERY`: delivery areas whose name matches (their ids feed `cod rate` and `pay`). */
export const codArea: Handler = async (env, query: string) => {
  const areas = await findAreas(env, query);
  if (!areas) return 'ok';
  if (env.out.json) env.out.data(areas);
  else if (areas.length === 0) env.out.info(`no area matches "${query}"`);
  else
    env.out.out(
      env.out.table(
        areas.map((a) => [String(a.id), a.subdistrict, a.district, a.city, a.postalCode]),
        ['ID', 'SUBDISTRICT', 'DISTRICT', 'CITY', 'POSTAL'],
        (s) => env.out.c.bold(s),
      ),
    );
  return 'ok';
};

interface RateFlags {
  from: string;
  to: string;
  weight: string;
  amount: string;
}

/** `paycli cod rate`: couriers and services for a parcel, with price and estimate. */
export const codRate: Handler<RateFlags> = async (env) => {
  const { opts, out } = env;
  const rates = await findRates(env, rateParams(opts.from, opts.to, opts.weight, opts.amount));
  if (!rates) return 'ok';
  if (out.json) out.data(rates);
  else {
    out.out(
      out.table(
        rates.map((r) => [r.shipping, r.service, r.name, Number.isFinite(r.price) ? rupiah(r.price) : '-', r.estimate || '-']),
        ['SHIPPING', 'SERVICE', 'NAME', 'PRICE', 'ESTIMATE'],
        (s) => out.c.bold(s),
      ),
    );
    if (rates.length > 0) out.info(`pay with: paycli pay --method cod --shipping ${rates[0]!.shipping} --shipping-service ${rates[0]!.service} …`);
  }
  return 'ok';
};

interface LabelFlags {
  output?: string;
  force?: boolean;
}

/** Writes the label's bytes to a new file (0600: it carries the buyer's address). */
function writeLabel(path: string, bytes: Buffer, force: boolean): void {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead of blocking the process.
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK | (force ? 0 : constants.O_EXCL), 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UsageError(`${path} already exists`, { hint: 'add --force to replace it, or give another --output' });
    if (code === 'ENXIO') throw new UsageError(`cannot use the label file ${path}: it is not a regular file`, { hint: 'give the path of a new file' });
    throw fsError(err, `the label file ${path}`);
  }
  try {
    if (!fstatSync(fd).isFile()) throw new UsageError(`cannot use the label file ${path}: it is not a regular file`, { hint: 'give the path of a new file' });
    if (force) ftruncateSync(fd, 0); // only once it is known to be a regular file
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

/** `paycli cod label TRX`: the shipping label of a COD transaction, saved as a PDF (or its URL). */
export const codLabel: Handler<LabelFlags> = async (env, trx: string) => {
  const { opts, out } = env;
  const sent = await sendCod(env, 'label', { transaction_id: transactionId(trx) });
  if (!sent) return 'ok';
  const { res } = sent;
  const bytes = res.bytes ?? Buffer.from(res.text);
  const isPdf = /application\/pdf/i.test(res.headers['content-type'] ?? '') || bytes.subarray(0, 5).toString('latin1') === '%PDF-';
  if (isPdf && res.status < 400) {
    const path = opts.output ?? `label-${trx}.pdf`;
    writeLabel(resolve(env.ctx.cwd, path), bytes, opts.force === true);
    if (out.json) out.data({ transactionId: Number(trx), file: path, bytes: bytes.length });
    else out.out(`label of transaction ${trx} saved to ${path} (${bytes.length} bytes)`);
    return 'ok';
  }
  // A JSON answer: the label's address (the gateway's docs do not say which it sends).
  const data = envelopeData(res, sent.url) as Record<string, unknown> | null;
  const url = typeof data === 'string' ? data : (data?.Url ?? data?.url ?? data?.label ?? data?.Label);
  if (out.json) out.data(data);
  else if (typeof url === 'string') out.out(url);
  else out.data(data);
  return 'ok';
};

interface TrackFlags {
  awb?: string;
  trx?: string;
}

/** `paycli cod track`: where a COD parcel is, by AWB or transaction id. */
export const codTrack: Handler<TrackFlags> = async (env) => {
  const { opts, out } = env;
  if (!opts.awb === !opts.trx) throw new UsageError('give --awb AWB or --trx TRANSACTION_ID (one of them)');
  const params: CodParams = opts.awb ? { awb: opts.awb } : { transaction_id: transactionId(opts.trx!) };
  const sent = await sendCod(env, 'track', params);
  if (!sent) return 'ok';
  const t = readCodTracking(envelopeData(sent.res, sent.url));
  if (out.json) out.data(t);
  else {
    out.out(`AWB ${t.awb || '-'} · ${t.status || 'unknown'}`);
    if (t.history.length > 0) out.out(out.table(t.history.map((h) => [h.at, h.status, h.note])));
  }
  return 'ok';
};

interface PickupFlags {
  date: string;
  time: string;
  vehicle: string;
}

/** `paycli cod pickup TRX`: asks the courier to pick the parcel up (a real courier in production). */
export const codPickup: Handler<PickupFlags> = async (env, trx: string) => {
  const { opts, out, session } = env;
  const params = pickupParams(trx, opts.date, opts.time, opts.vehicle);
  await session.guardProduction(`request a ${params.pickup_vehicle} pickup of transaction ${trx} on ${opts.date} ${opts.time} WIB`);
  const sent = await sendCod(env, 'pickup', params);
  if (!sent) return 'ok';
  const data = envelopeData(sent.res, sent.url);
  if (out.json) out.data(data);
  else out.out(`pickup requested for transaction ${trx}: ${opts.date} ${opts.time} WIB by ${params.pickup_vehicle}`);
  return 'ok';
};

// ── Definitions ─────────────────────────────────────────────────────────────────────────────────

const defineCod: Define = (program, bind) => {
  const cod = topCommand(program, 'cod');
  bind(
    examples(apiFlags(cod.command('area <query>').description('find delivery areas (ids for `cod rate` and COD payments)')), [
      'paycli cod area grogol',
      'paycli --env local cod area denpasar --json',
    ]),
    codArea,
  );
  bind(
    examples(
      apiFlags(
        cod
          .command('rate')
          .description('couriers and services for a parcel: price and estimate')
          .requiredOption('--from <area>', 'pickup area id (`paycli cod area`)')
          .requiredOption('--to <area>', 'delivery area id')
          .requiredOption('--weight <kg>', 'weight in kilograms')
          .requiredOption('--amount <rupiah>', "the goods' value (collected on delivery)"),
      ),
      ['paycli cod rate --from 17473 --to 17473 --weight 1 --amount 100000', 'paycli --env local cod rate --from 1 --to 2 --weight 0.5 --amount 75000 --json'],
    ),
    codRate,
  );
  bind(
    examples(
      apiFlags(
        cod
          .command('label <trx>')
          .description('save the shipping label of a COD transaction')
          .option('-o, --output <file>', 'where to save the PDF (default label-TRX.pdf)')
          .option('--force', 'replace the file if it exists'),
      ),
      ['paycli cod label 100001', 'paycli cod label 100001 --output labels/100001.pdf --force'],
    ),
    codLabel,
  );
  bind(
    examples(
      apiFlags(
        cod.command('track').description('where a COD parcel is').option('--awb <awb>', 'the waybill number').option('--trx <id>', 'the transaction id'),
      ),
      ['paycli cod track --awb KOMSHIP00137699862', 'paycli cod track --trx 100001 --json'],
    ),
    codTrack,
  );
  bind(
    examples(
      apiFlags(
        cod
          .command('pickup <trx>')
          .description('ask the courier to pick the parcel up')
          .requiredOption('--date <day>', 'YYYY-MM-DD (WIB)')
          .requiredOption('--time <hh:mm>', '24-hour time (WIB)')
          .requiredOption('--vehicle <vehicle>', 'Motor or Mobil'),
      ),
      [
        'paycli cod pickup 100001 --date 2026-12-01 --time 14:00 --vehicle Motor',
        'paycli --env local cod pickup 100001 --date 2026-12-01 --time 09:30 --vehicle Mobil --json',
      ],
    ),
    codPickup,
  );
};

export const commands = { cod: defineCod };
