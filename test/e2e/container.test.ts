// The container image end to end (issue 29 §1): scripts/container/smoke.sh builds the Dockerfile
// unchanged with podman, waits for its own health check, pays from the host and receives the
// callback on the host. It needs root, podman, runc and debootstrap (.ci/run installs them); the
// first run makes the base images (minutes), later ones import them from ~/.cache/paycli-ci.
import { describe, expect, it } from 'vitest';
import { containerToolsMissing, runContainerScript, skipContainerTest } from '../helpers/container-script.js';

const why = containerToolsMissing(['podman', 'runc', 'debootstrap']);

describe('the container image', () => {
  it.skipIf(skipContainerTest(why))(
    `builds, passes its health check, and delivers a payment's callback to the host${why ? ` (skipped: ${why})` : ''}`,
    async () => {
      expect(why, 'CI runs the container test: .ci/run installs its tools').toBe('');
      const r = await runContainerScript('smoke.sh');
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain('callback received and verified on the host');
    },
    45 * 60_000,
  );
});
