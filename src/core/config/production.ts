/**
 * Where production is: the one rule that decides whether a request reaches the real gateway's
 * production (and so needs a confirmation), whatever the environment is called.
 */

/** The official base URL of production: the only one a production request goes to unasked. */
export const OFFICIAL_PRODUCTION_BASE_URL = 'https://my.ipaymu.com/api';

/** Whether a base URL is the official production one (same origin, path /api). */
export function isOfficialProduction(url: string): boolean {
  try {
    const u = new URL(url);
    return (
      u.protocol === 'https:' &&
      u.hostname.toLowerCase() === 'my.ipaymu.com' &&
      (u.port === '' || u.port === '443') &&
      u.pathname.replace(/\/+$/, '') === '/api'
    );
  } catch {
    return false;
  }
}
/**
 * The production gateway's host (gateway docs: production https://my.ipaymu.com, sandbox
 * https://sandbox.ipaymu.com): OFFICIAL_PRODUCTION_BASE_URL's, written out rather than parsed at
 * load, where a first `new URL` costs every command's start ~0.2 ms (a test checks they agree).
 */
export const PRODUCTION_HOST = 'my.ipaymu.com';

/** Whether a URL points at the production gateway's host, whatever its scheme, port or path. */
export function isProductionHostUrl(url: string): boolean {
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, '') === PRODUCTION_HOST;
  } catch {
    return false;
  }
}

/**
 * Whether this run's requests reach production: by where they go as much as by the environment's
 * name. The default environment with `--base-url https://my.ipaymu.com/api` is production too.
 * The one rule behind every confirmation (Session.guardProduction).
 */
export function targetsProduction(config: { env: { value: string; origin?: string }; baseUrl: { value: string; origin?: string } }): boolean {
  return config.env.value === 'production' || isProductionHostUrl(config.baseUrl.value);
}
