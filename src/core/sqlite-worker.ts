import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';

/**
 * What every worker thread with its own SQLite connection starts with (the WAL checkpointer, the
 * listener's writer thread): `parentPort`, `workerData` and `receiveMessageOnPort`; `db`, the
 * connection to the database at `workerData.path` (which must exist), with `workerData.pragmas` set in
 * order; `closeDb()`, which closes it, tells the parent thread `closed` and ends the worker's port.
 */
const PRELUDE = `
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const db = new Sqlite(workerData.path, { fileMustExist: true });
for (const [name, value] of workerData.pragmas) db.pragma(name + ' = ' + value);
function closeDb() {
  db.close();
  parentPort.postMessage('closed');
  parentPort.close();
}
`;

/**
 * Starts `source` (text: the CLI runs from one bundle, so a worker has no file of its own to
 * locate) after PRELUDE, as an unreferenced worker thread (it never keeps the process alive), with
 * its own connection to `path`. `data` joins `workerData`.
 */
export async function startSqliteWorker(
  source: string,
  path: string,
  pragmas: readonly (readonly [string, string | number])[],
  data: Record<string, unknown> = {},
): Promise<Worker> {
  const { Worker: WorkerClass } = await import('node:worker_threads');
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker: Worker = new WorkerClass(PRELUDE + source, { eval: true, workerData: { ...data, driver, path, pragmas } });
  worker.unref();
  return worker;
}
