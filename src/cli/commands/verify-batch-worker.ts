import { createReadStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { verifyStream } from './verify-batch.js';

/** A worker of `verify-callback --jsonl`: verifies its own byte range of the file (lines counted from 1). */
const { va, path, start, end } = workerData as { va: string; path: string; start: number; end: number };
const result = await verifyStream(createReadStream(path, { start, end: end - 1 }), va, 1);
parentPort!.postMessage(result);
