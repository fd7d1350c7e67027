import { parentPort, workerData } from 'node:worker_threads';
import { verifyBlocks, type BatchWorkerData } from './verify-batch.js';

/** A worker thread of `verify-callback --jsonl`: verifies blocks of the file until none is left, then reports them. */
parentPort!.postMessage(verifyBlocks(workerData as BatchWorkerData, true));
