import { mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxLog, StoreError, type LogFile } from '../../src/core/sandbox/log.js';
import { ID_BLOCK, SandboxState, type JournalRecord, type Transaction } from '../../src/core/sandbox/state.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'paycli-journal-'));
  dirs.push(d);
  return d;
}

function txn(id: number, over: Partial<Transaction> = {}): Transaction {
  return {
    id, sid: `sid-${id}`, merchantVa: '1179000899', referenceId: `REF-${id}`, via: 'va', channel: 'bca', paymentNo: `8868${String(id).padStart(12, '0')}`,
    paymentName: 'BCA', amount: 10_000, fee: 4000, status: 'pending', createdAt: 1_700_000_000_000, expiresAt: 1_700_086_400_000,
    notifyUrl: 'http://127.0.0.1:9/cb', buyer: { name: 'A', phone: '0812345678', email: 'a@b.co' }, items: [], ...over,
  };
}

/** An in-memory file whose writes can be made to fail. */
class FlakyFile implements LogFile {
  data = Buffer.alloc(0);
  mode: 'ok' | 'eio' = 'ok';
  truncations: number[] = [];
  async write(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesWritten: number }> {
    if (this.mode === 'eio') throw Object.assign(new Error('i/o error'), { code: 'EIO' });
    const next = Buffer.alloc(Math.max(this.data.length, position + length));
    this.data.copy(next);
    buffer.copy(next, position, offset, offset + length);
    this.data = next;
    return { bytesWritten: length };
  }
  async truncate(length: number): Promise<void> {
    this.truncations.push(length);
    this.data = this.data.subarray(0, length);
  }
  async stat(): Promise<{ size: number }> {
    return { size: this.data.length };
  }
  async read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }> {
    const n = this.data.copy(buffer, offset, position, position + length);
    return { bytesRead: n };
  }
  async close(): Promise<void> {}
}

/** A file on a disk that fills up: with `full` set, 5 more bytes fit (a short write), then ENOSPC. */
class FullDisk extends FlakyFile {
  private room = Number.POSITIVE_INFINITY;
  set full(on: boolean) {
    this.room = on ? 5 : Number.POSITIVE_INFINITY;
  }
  override async write(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesWritten: number }> {
    if (this.room <= 0) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    const n = Math.min(length, this.room);
    this.room -= n;
    return super.write(buffer, offset, n, position);
  }
}

describe('the emulator journal writer', () => {
  it('a short write followed by ENOSPC rejects, and the file is cut back to its length before the batch', async () => {
    const file = new FullDisk();
    const log = new SandboxLog<JournalRecord>('/virtual/journal.jsonl', async () => file);
    await log.open();
    await log.append({ t: 'ids', upTo: 2000 });
    const before = Buffer.from(file.data);
    file.full = true;
    const err = await log.append({ t: 'txn', txn: txn(100_001) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('ENOSPC');
    expect((err as StoreError).message).toContain('no space left');
    expect(file.data.equals(before)).toBe(true); // no torn line left behind
    expect(file.truncations).toEqual([before.length]);
    // Space comes back: the next record starts on a clean line.
    file.full = false;
    await log.append({ t: 'txn', txn: txn(100_002) });
    const lines = file.data.toString().trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as JournalRecord).t)).toEqual(['ids', 'txn']);
  });

  it('a failed write leaves the state in memory unchanged; ids are not handed out twice', async () => {
    const file = new FullDisk();
    const log = new SandboxLog<JournalRecord>('/virtual/journal.jsonl', async () => file);
    const state = await SandboxState.open(undefined, log);
    const id1 = await state.reserveId();
    await state.addTransaction(txn(id1));
    file.full = true;
    const id2 = await state.reserveId(); // inside the reserved block: no write needed
    await expect(state.addTransaction(txn(id2))).rejects.toBeInstanceOf(StoreError);
    expect(state.txns.has(id2)).toBe(false);
    await expect(state.transition(id1, 'berhasil', Date.now(), { trxId: id1, status: 'berhasil', url: 'http://x/', format: 'form', attempts: 0, state: 'pending', nextAt: 0, createdAt: 0 })).rejects.toBeInstanceOf(StoreError);
    expect(state.txns.get(id1)!.status).toBe('pending');
    expect(state.deliveries.size).toBe(0);
    file.full = false;
    const id3 = await state.reserveId();
    expect(id3).toBeGreaterThan(id2);
    const d = await state.transition(id1, 'berhasil', Date.now(), { trxId: id1, status: 'berhasil', url: 'http://x/', format: 'form', attempts: 0, state: 'pending', nextAt: 0, createdAt: 0 });
    expect(d?.id).toMatch(/^cb-\d+$/);
    expect(state.txns.get(id1)!.status).toBe('berhasil');
  });

  it('an EIO on write rejects with a StoreError naming the journal', async () => {
    const file = new FlakyFile();
    const log = new SandboxLog<JournalRecord>('/virtual/journal.jsonl', async () => file);
    await log.open();
    file.mode = 'eio';
    const err = (await log.append({ t: 'ids', upTo: 5 }).catch((e: unknown) => e)) as StoreError;
    expect(err).toBeInstanceOf(StoreError);
    expect(err.message).toContain('/virtual/journal.jsonl');
  });
});

describe('the emulator journal on restart', () => {
  it('skips and counts unreadable and schema-invalid lines, and applies the rest', async () => {
    const dir = tempDir();
    const path = join(dir, 'journal.jsonl');
    const good = (r: JournalRecord) => JSON.stringify(r) + '\n';
    writeFileSync(path, [
      good({ t: 'ids', upTo: 101_001 }),
      good({ t: 'txn', txn: txn(100_001) }),
      'this is not json\n',
      'null\n',
      '{"t":"txn"}\n',
      '{"t":"status","id":"x"}\n',
      '{"t":"from-the-future","x":1}\n',
      good({ t: 'status', id: 100_001, status: 'berhasil', at: 1_700_000_100_000, d: { id: 'cb-1', trxId: 100_001, status: 'berhasil', url: 'http://x/', format: 'form', attempts: 0, state: 'pending', nextAt: 0, createdAt: 0 } }),
      '{"t":"txn","txn":{"id":100002,"torn',
    ].join(''));
    const state = await SandboxState.open(dir);
    expect(state.skipped).toBe(6);
    expect(state.txns.get(100_001)!.status).toBe('berhasil');
    expect(state.deliveries.get('cb-1')).toMatchObject({ trxId: 100_001, state: 'pending' });
    expect(await state.reserveId()).toBeGreaterThanOrEqual(101_001);
    await state.close();
    // The torn line was ended, so the records written after it read back.
    const again = await SandboxState.open(dir);
    expect(again.skipped).toBe(6);
    expect(readFileSync(path, 'utf8').split('\n').filter((l) => l.startsWith('{"t":"ids"')).length).toBe(2);
    await again.close();
  });

  it('never reuses an id or payment number, whatever the tail of the journal looks like', async () => {
    const dir = tempDir();
    const path = join(dir, 'journal.jsonl');
    const state = await SandboxState.open(dir);
    const issued: number[] = [];
    for (let i = 0; i < 5; i++) {
      const id = await state.reserveId();
      await state.addTransaction(txn(id));
      issued.push(id);
    }
    await state.close();
    // Cut every transaction record off the end (as a lost tail would), keep only the reservation.
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    writeFileSync(path, lines.filter((l) => l.includes('"t":"ids"')).join('\n') + '\n');
    appendFileSync(path, '{"t":"txn","txn":{"id":1000'); // and a torn line for good measure
    const after = await SandboxState.open(dir);
    const next = await after.reserveId();
    expect(next).toBeGreaterThan(Math.max(...issued));
    expect(next).toBeGreaterThanOrEqual(issued[0]! + ID_BLOCK);
    await after.close();
  });

  it('after a restart ids go on above every reservation, even one never used', async () => {
    const dir = tempDir();
    const a = await SandboxState.open(dir);
    const first = await a.reserveId();
    await a.addTransaction(txn(first));
    await a.close();
    const b = await SandboxState.open(dir);
    const second = await b.reserveId();
    expect(second).toBe(first + ID_BLOCK);
    await b.addTransaction(txn(second));
    await b.close();
    const c = await SandboxState.open(dir);
    expect(c.txns.size).toBe(2);
    expect(await c.reserveId()).toBe(first + 2 * ID_BLOCK);
    await c.close();
  });
});
