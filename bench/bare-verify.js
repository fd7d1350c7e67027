// The physical limit for batch verification: parse each JSONL line and HMAC its body, nothing else.
// Usage: node bench/bare-verify.js FILE VA [THREADS]. With THREADS > 1 the file is split into
// line-aligned byte ranges, each read and verified by its own worker thread, as paycli does, so
// that both sides use the same number of cores.
import { createHmac } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

function verifyText(text, va) {
  let n = 0;
  for (const line of text.split('\n')) {
    if (!line) continue;
    const capture = JSON.parse(line);
    createHmac('sha256', va).update(capture.body).digest('hex');
    n++;
  }
  return n;
}

function readRange(path, start, end) {
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(end - start);
  readSync(fd, buf, 0, buf.length, start);
  closeSync(fd);
  return buf.toString('utf8');
}

if (!isMainThread) {
  const { path, va, start, end } = workerData;
  parentPort.postMessage(verifyText(readRange(path, start, end), va));
} else {
  const [file, va, threadsArg] = process.argv.slice(2);
  const threads = Number(threadsArg ?? 1);
  if (threads <= 1) {
    console.log(verifyText(readFileSync(file, 'utf8'), va));
  } else {
    // Line-aligned ranges: each boundary moved to just after the next newline.
    const fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const cuts = [0];
    const probe = Buffer.alloc(64 * 1024);
    for (let i = 1; i < threads; i++) {
      let at = Math.floor((size * i) / threads);
      const n = readSync(fd, probe, 0, probe.length, at);
      const nl = probe.subarray(0, n).indexOf(10);
      at = nl < 0 ? size : at + nl + 1;
      cuts.push(Math.max(at, cuts.at(-1)));
    }
    cuts.push(size);
    closeSync(fd);
    const counts = await Promise.all(
      cuts.slice(0, -1).map(
        (start, i) =>
          new Promise((resolve, reject) => {
            const w = new Worker(new URL(import.meta.url), { workerData: { path: file, va, start, end: cuts[i + 1] } });
            w.once('message', resolve);
            w.once('error', reject);
          }),
      ),
    );
    console.log(counts.reduce((a, b) => a + b, 0));
  }
}
