// The emulator's COD logistics (issue 28): the area search scans every village of the bundled
// region data (no index by name), so its cost per query is the figure to watch; the PDF label is
// generated per request. Prints one JSON object (medians in ms). Run after `npm run build`:
// `node bench/cod-logistics.js`. Not part of bench/run.js (no bare-Node baseline applies).
import { loadRegions } from '../dist/core/sandbox/regions.js';
import { searchAreas } from '../dist/core/sandbox/cod-areas.js';
import { pdfDocument } from '../dist/core/sandbox/pdf.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 41);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (fn) => {
  const t = performance.now();
  fn();
  return performance.now() - t;
};

const index = await loadRegions();
const firstSearchMs = time(() => searchAreas(index, 'grogol')); // builds the village list once
const search = {};
for (const q of ['grogol petamburan', 'kuta utara', 'jakarta', 'no such place'])
  search[q] = median(Array.from({ length: RUNS }, () => time(() => searchAreas(index, q))));
const lines = [
  { text: 'IDEXPRESS STD', size: 16 },
  { text: 'AWB PAYCLI0000100001', size: 14 },
  ...Array.from({ length: 14 }, (_, i) => ({ text: `line ${i} `.repeat(6) })),
];
const labelMs = median(Array.from({ length: RUNS }, () => time(() => pdfDocument(lines, 'Label'))));
console.log(
  JSON.stringify({
    villages: index.counts.villages,
    firstSearchMs: +firstSearchMs.toFixed(1),
    searchMedianMs: Object.fromEntries(Object.entries(search).map(([k, v]) => [k, +v.toFixed(2)])),
    labelMedianMs: +labelMs.toFixed(3),
    labelBytes: pdfDocument(lines).length,
  }),
);
