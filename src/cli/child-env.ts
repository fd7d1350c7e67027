/**
 * The environment for a program paycli starts that is not paycli (git in doctor, the desktop's URL
 * opener): the run's environment without PAYCLI_* variables (the API key and VA live there) and
 * without any variable whose value holds one of `secrets`, so neither the program nor anything it
 * starts (a repository's hook, a browser and its helpers) sees them.
 */
export function childEnv(env: Record<string, string | undefined>, secrets: (string | undefined)[], drop: RegExp = /^$/): NodeJS.ProcessEnv {
  const held = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4);
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || /^PAYCLI_/i.test(k) || drop.test(k) || held.some((s) => v.includes(s))) continue;
    out[k] = v;
  }
  return out;
}
