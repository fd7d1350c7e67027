import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';

// Every TypeScript/JavaScript block of README.md compiles with tsc under `strict` against the built
// package (imported as `paycli` or `paycli/callback`, as a user would), and the callback server
// examples (node:http and Express), kept verbatim in examples/, really run: with the VA unset they
// answer 500 and keep running.
const ROOT = new URL('../..', import.meta.url).pathname;
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
let work: string;

/** README and the hand-written docs (docs/*.md, docs/commands/prose/*.md; the generated pages only copy the prose). */
function docFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const prose = readdirSync(join(ROOT, 'docs/commands/prose')).map((f) => `docs/commands/prose/${f}`);
  return ['README.md', ...docs, ...prose];
}

function readmeBlocks(): { lang: string; code: string; line: number; file: string }[] {
  const blocks: { lang: string; code: string; line: number; file: string }[] = [];
  for (const file of docFiles()) blocks.push(...fileBlocks(file));
  return blocks;
}

function fileBlocks(file: string): { lang: string; code: string; line: number; file: string }[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: { lang: string; code: string; line: number; file: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|typescript|js|javascript|mjs)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i + 1;
    let j = start;
    while (j < lines.length && lines[j] !== '```') j++;
    blocks.push({ lang: open[1]!, code: lines.slice(start, j).join('\n') + '\n', line: start, file });
    i = j;
  }
  return blocks;
}

beforeAll(() => {
  // Inside the package (not under node_modules), so that `import … from 'paycli'` resolves to this
  // package by self-reference, as it does for a user who installed it.
  mkdirSync(join(ROOT, 'test/.tmp'), { recursive: true });
  work = mkdtempSync(join(ROOT, 'test/.tmp/readme-code-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('README and docs code', () => {
  it('every TypeScript/JavaScript block type-checks under strict (examples/ files included)', () => {
    const blocks = readmeBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const examples = readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.ts'));
    const server = readFileSync(join(ROOT, 'examples/callback-server.ts'), 'utf8');
    expect(
      blocks.some((b) => b.file === 'README.md' && b.code === server),
      'README shows examples/callback-server.ts verbatim',
    ).toBe(true);
    const express = readFileSync(join(ROOT, 'examples/callback-express.ts'), 'utf8');
    expect(
      blocks.some((b) => b.file === 'README.md' && b.code === express),
      'README shows examples/callback-express.ts verbatim',
    ).toBe(true);
    const files: string[] = examples.map((f) => join(ROOT, 'examples', f));
    blocks.forEach((b, i) => {
      if (examples.some((f) => readFileSync(join(ROOT, 'examples', f), 'utf8') === b.code)) return;
      const file = join(work, `block-${i + 1}-${b.file.replace(/[/.]/g, '_')}-line-${b.line}.ts`);
      writeFileSync(file, b.code);
      files.push(file);
    });
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules/@types')],
        },
        files,
      }),
    );
    let output = '';
    try {
      execFileSync(process.execPath, [TSC, '-p', join(work, 'tsconfig.json')], { cwd: work, encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      output = String((err as { stdout?: string }).stdout ?? err);
    }
    expect(output).toBe('');
  });

  it.each([
    ['callback-server', '/'],
    ['callback-express', '/ipaymu/callback'],
  ])('runs the %s example: 500 without a VA (and keeps running), then 200 / 400 with one', async (name, path) => {
    const out = join(work, `built-${name}`);
    writeFileSync(
      join(work, `tsconfig.${name}.json`),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules/@types')],
          outDir: out,
          rootDir: join(ROOT, 'examples'),
        },
        files: [join(ROOT, `examples/${name}.ts`)],
      }),
    );
    execFileSync(process.execPath, [TSC, '-p', join(work, `tsconfig.${name}.json`)], { cwd: work, stdio: 'pipe' });
    // The built example runs from inside the package (test/.tmp): "paycli/callback" resolves to it.
    const fixture = readFileSync(join(ROOT, 'test/fixtures/callback-qris-sandbox.form'), 'utf8');
    const sig = 'c9594cc8c9f5811ecf22422eed1c8071f7837211f58956f616658a904d94f024';
    const post = async (port: number, body: string, signature: string) => {
      const res = await request(`http://127.0.0.1:${port}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-signature': signature },
        body,
      });
      return { status: res.statusCode, text: await res.body.text() };
    };
    for (const va of [undefined, '1179000899']) {
      const port = await new Promise<number>((resolve) => {
        const s = createServer().listen(0, '127.0.0.1', () => {
          const p = (s.address() as { port: number }).port;
          s.close(() => resolve(p));
        });
      });
      const env: Record<string, string> = { PATH: process.env.PATH ?? '', PORT: String(port) };
      if (va) env.IPAYMU_VA = va;
      const child = spawn(process.execPath, [join(out, `${name}.js`)], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c));
      try {
        let ready = false;
        for (let i = 0; i < 200 && !ready; i++) {
          ready = await post(port, 'a=1', 'x').then(
            () => true,
            () => false,
          );
          if (!ready) await new Promise((r) => setTimeout(r, 25));
        }
        expect(ready, stderr).toBe(true);
        if (!va) {
          expect(await post(port, fixture, sig)).toEqual({ status: 500, text: 'IPAYMU_VA is not set' });
          expect(await post(port, fixture, sig)).toEqual({ status: 500, text: 'IPAYMU_VA is not set' }); // still running
          expect(child.exitCode).toBeNull();
        } else {
          expect(await post(port, fixture, sig)).toEqual({ status: 200, text: '{"status":"OK"}' });
          expect(await post(port, fixture, sig)).toEqual({ status: 200, text: '{"status":"OK"}' }); // a retry, through the same check
          expect((await post(port, fixture, '00721607209ced43b06cd8f24be4d8b172685bf10be9830fa4c75ddbd949de30')).status).toBe(400);
          expect((await post(port, fixture.replace('amount=', 'amount=9'), sig)).status).toBe(400);
          expect(await post(port, 'a=%zz', sig)).toMatchObject({ status: 400, text: expect.stringMatching(/percent-encoding/) });
        }
        expect(stderr).toBe('');
      } finally {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((r) => child.once('exit', r));
          child.kill();
          await exited;
        }
      }
    }
  });
});
