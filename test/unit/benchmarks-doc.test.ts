// README's speed figures are the ones BENCHMARKS.md records (they drifted apart once: 125 000 vs
// 91 082 captures/s). Rerunning `npm run bench` means updating README's table too.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const bench = readFileSync(new URL('BENCHMARKS.md', root), 'utf8');
const speed = readme.slice(readme.indexOf('## Speed'), readme.indexOf('## Development'));

function grab(re: RegExp): string {
  const m = re.exec(bench);
  if (!m?.[1]) throw new Error(`BENCHMARKS.md: no match for ${re}`);
  return m[1];
}

describe('README and BENCHMARKS.md agree', () => {
  it('quotes the listener, batch and cold-start figures of the recorded run', () => {
    const figures = [
      grab(/Throughput ratio \*\*([\d.]+)×\*\*/),
      grab(/CPU ratio \(bare µs ÷ listener µs\) \*\*([\d.]+)×\*\*/),
      grab(/`paycli listen --json --store`[^|]*\| [^|]+\| ([\d.]+) µs/),
      grab(/bare `node:http` \(read the body, answer 200\) \| [^|]+\| ([\d.]+) µs/),
      grab(/\| \*\*([\d.]+)×\*\* \| ≤ 2\.5×/),
      grab(/one core[^|]*\| [^|]+\| [^|]+\| ([\d.]+)×/),
      grab(/([\d,]+) captures\/s including process start/),
      grab(/\| `paycli --help` \| [\d.]+ \| [^|]+ \| ([\d.]+)×/),
      grab(/\| `paycli verify-callback <fixture>` \| [\d.]+ \| [^|]+ \| ([\d.]+)×/),
      grab(/\| `node -e 0` \| ([\d.]+) \|/),
    ];
    for (const f of figures) expect(speed, f).toContain(f);
  });

  it('states each target the same way in both', () => {
    for (const target of ['≤ 1.25×', '≤ 1.5×', '≤ 1.6×', '≤ 2.5×', '≥ 0.5×']) {
      expect(bench, target).toContain(target);
      expect(speed, target).toContain(target);
    }
    const listenerMet = /target ≥ 0\.5× — met/.test(bench);
    expect(speed).toMatch(listenerMet ? /≥ 0\.5× \(met[ :)]/ : /≥ 0\.5× \(\*\*missed\*\*/);
  });

  it('gives the same number of rounds within each target', () => {
    const rounds = (re: RegExp) => `met in ${grab(re)} rounds`;
    for (const r of [
      rounds(/\| `paycli --version` \|[^\n]*— (?:met|\*\*missed\*\*) \(in (\d+ of \d+) rounds\)/),
      rounds(/\| `paycli --help` \|[^\n]*— (?:met|\*\*missed\*\*) \(in (\d+ of \d+) rounds\)/),
      rounds(/\| `paycli verify-callback <fixture>` \|[^\n]*— (?:met|\*\*missed\*\*) \(in (\d+ of \d+) rounds\)/),
      // The listener's rounds, met or missed: `… — met, in 8 of 8 rounds` or `… — **missed**, in 1 of 8 rounds`.
      `${/target ≥ 0\.5× — met/.test(bench) ? 'met' : '**missed**'}: ${grab(/target ≥ 0\.5× — (?:met|\*\*missed\*\*), in (\d+ of \d+) rounds/)} rounds`,
    ])
      expect(speed, r).toContain(r);
    expect(speed).toContain(`met in ${grab(/\*\*[\d.]+×\*\* \| ≤ 2\.5× — met \(in (\d+ of \d+) rounds\)/)} runs`);
  });
});
