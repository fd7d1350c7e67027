import { type SandboxOptions, type SandboxHandle } from '../../src/core/sandbox/server.js';
import { startSandbox } from '../../src/sandbox.js';
import { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA } from '../../src/core/config/resolve.js';

export { EMULATOR_DEFAULT_API_KEY, EMULATOR_DEFAULT_VA };

/** Starts an in-memory emulator on a free loopback port. */
export function sandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  return startSandbox({ port: 0, retrySchedule: [50, 100, 200], callbackTimeoutMs: 2000, ...options });
}

/** Environment that points paycli at an emulator with its default credentials. */
export function localEnv(sb: SandboxHandle, extra: Record<string, string> = {}): Record<string, string> {
  return { PAYCLI_ENV: 'local', PAYCLI_BASE_URL: sb.apiUrl, ...extra };
}
