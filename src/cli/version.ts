import { readFileSync } from 'node:fs';

/** Set by scripts/bundle.js to the version in package.json; absent when the compiled modules run. */
declare const __PAYCLI_VERSION__: string | undefined;

/** The package version: built into the bundle, else read once from package.json next to dist/. */
export const VERSION: string =
  typeof __PAYCLI_VERSION__ === 'string'
    ? __PAYCLI_VERSION__
    : (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
