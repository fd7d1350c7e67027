// examples/compose end to end (issue 29 §1): scripts/container/compose-smoke.sh runs the example's
// compose.yaml unchanged with podman-compose; the shop (PHP) creates a payment on the emulator by
// its service name, the buyer pays, and the shop receives the callback and finds it valid. The
// first run makes the base images (minutes), later ones import them from ~/.cache/paycli-ci.
import { describe, expect, it } from 'vitest';
import { containerToolsMissing, runContainerScript, skipContainerTest } from '../helpers/container-script.js';

const why = containerToolsMissing(['podman', 'podman-compose', 'runc', 'debootstrap'], {
  '/usr/lib/cni/dnsname': 'golang-github-containernetworking-plugin-dnsname',
});

describe('the compose example', () => {
  it.skipIf(skipContainerTest(why))(
    `brings up the emulator and the PHP shop, and the shop receives a valid callback${why ? ` (skipped: ${why})` : ''}`,
    async () => {
      expect(why, 'CI runs the compose test: .ci/run installs its tools').toBe('');
      const r = await runContainerScript('compose-smoke.sh');
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain('its callback received by the shop and its signature valid');
    },
    45 * 60_000,
  );
});
