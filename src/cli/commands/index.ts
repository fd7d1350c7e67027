import type { Define } from '../command-kit.js';

/**
 * The registry: every top-level command, in the order of the root help, with its help group and the
 * module that defines and implements it, one module per command. A module is imported only when its
 * command runs (or when the whole tree is needed: `help <command>`, completion scripts); the root
 * help and a typo's suggestion are made from heads.ts alone. To add a command, write its module
 * (definition next to handler, exporting `commands`) and add a line here and one in heads.ts.
 */
export const REGISTRY = [
  { name: 'areas', group: 'API commands:', load: () => import('./areas.js') },
  { name: 'demo', group: 'Setup commands:', load: () => import('./demo.js') },
  { name: 'config', group: 'Setup commands:', load: () => import('./config.js') },
  { name: 'doctor', group: 'Setup commands:', load: () => import('./doctor.js') },
  { name: 'completion', group: 'Setup commands:', load: () => import('./completion.js') },
  { name: '__complete', group: 'Setup commands:', load: () => import('./complete.js') },
  { name: 'whoami', group: 'Setup commands:', load: () => import('./whoami.js') },
  { name: 'sign', group: 'API commands:', load: () => import('./sign-request.js') },
  { name: 'pay', group: 'API commands:', load: () => import('./pay.js') },
  { name: 'transaction', group: 'API commands:', load: () => import('./transaction.js') },
  { name: 'history', group: 'API commands:', load: () => import('./history.js') },
  { name: 'balance', group: 'API commands:', load: () => import('./balance.js') },
  { name: 'channels', group: 'API commands:', load: () => import('./channels.js') },
  { name: 'api', group: 'API commands:', load: () => import('./api.js') },
  { name: 'cod', group: 'API commands:', load: () => import('./cod.js') },
  { name: 'close', group: 'API commands:', load: () => import('./close.js') },
  { name: 'verify-callback', group: 'Callback commands:', load: () => import('./verify-callback.js') },
  { name: 'sign-callback', group: 'Callback commands:', load: () => import('./sign-callback.js') },
  { name: 'listen', group: 'Callback commands:', load: () => import('./listen.js') },
  { name: 'events', group: 'Callback commands:', load: () => import('./events.js') },
  { name: 'trigger', group: 'Callback commands:', load: () => import('./trigger.js') },
  { name: 'test-handler', group: 'Callback commands:', load: () => import('./test-handler.js') },
  { name: 'reconcile', group: 'Callback commands:', load: () => import('./reconcile.js') },
  { name: 'recover', group: 'Callback commands:', load: () => import('./recover.js') },
  { name: 'sandbox', group: 'Emulator commands:', load: () => import('./sandbox.js') },
  { name: 'scenario', group: 'Emulator commands:', load: () => import('./scenario.js') },
] as const satisfies readonly { name: string; group: string; load: () => Promise<{ commands: Partial<Record<string, Define>> }> }[];

export type TopLevelCommand = (typeof REGISTRY)[number]['name'];

/** The top-level command names. */
export const TOP_LEVEL_COMMANDS: readonly TopLevelCommand[] = REGISTRY.map((c) => c.name);
