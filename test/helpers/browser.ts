// The headless Chromium of the browser tests: Debian's, or the one $PAYCLI_CHROMIUM names.
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/** Where the Chromium executable is. */
export const CHROMIUM = process.env.PAYCLI_CHROMIUM ?? '/usr/bin/chromium';

/** Whether it is installed (outside CI the browser tests skip without it). */
export const haveBrowser = existsSync(CHROMIUM);

/** The flags every browser test starts Chromium with: headless, no sandbox, no GPU, no background traffic. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Starts Chromium with those flags and `extra` ones; the caller closes it. */
export async function launchChromium(extra: string[] = []): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: [...FLAGS, ...extra] });
}
