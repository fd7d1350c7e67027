import type { Database, Statement } from '../db.js';
import { type CoreStatements, LedgerCore } from './state-core.js';

/** The statements of the emulator's settings, with those of the parts below. */
export interface SettingsStatements extends CoreStatements {
  getSetting: Statement<[string], { value: string }>;
  putSetting: Statement<[string, string]>;
}

function prepareSettings(db: Database): Omit<SettingsStatements, keyof CoreStatements> {
  return {
    getSetting: db.prepare<[string], { value: string }>(`SELECT value FROM settings WHERE key = ?`),
    putSetting: db.prepare<[string, string]>(`INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT DO UPDATE SET value = excluded.value`),
  };
}

/** The emulator's durable settings (the clock's offset). */
export class SettingsLedger extends LedgerCore {
  declare protected readonly stmts: SettingsStatements;

  protected constructor(db: Database, path: string) {
    super(db, path);
    this.stmts = { ...this.stmts, ...prepareSettings(db) };
  }

  /** A durable setting of the emulator (the clock's offset), or undefined. */
  setting(key: string): string | undefined {
    return this.stmts.getSetting.get(key)?.value;
  }

  /** Stores a setting, committed before it resolves. */
  async setSetting(key: string, value: string): Promise<void> {
    await this.write(() => {
      this.stmts.putSetting.run(key, value);
    });
  }
}
