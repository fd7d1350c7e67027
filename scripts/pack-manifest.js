#!/usr/bin/env node
// `npm pack` / `npm publish`: the packed package.json leaves out what only a clone needs. The
// `prepare` script (build on `npm install` in a clone) would make npm warn a user who installs the
// tarball about an install script paycli never runs there, and `allowScripts` (which approves the
// devDependency esbuild's postinstall for `npm install` in a clone) means nothing to a dependent.
// `prepack` removes both and `postpack` puts the file back byte for byte.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const FILE = 'package.json';
const SAVED = 'package.json.prepack';
if (process.argv[2] === 'strip') {
  const text = readFileSync(FILE, 'utf8');
  const manifest = JSON.parse(text);
  if (manifest.scripts) delete manifest.scripts.prepare;
  delete manifest.allowScripts;
  writeFileSync(SAVED, text);
  writeFileSync(FILE, `${JSON.stringify(manifest, null, 2)}\n`);
} else if (process.argv[2] === 'restore') {
  if (existsSync(SAVED)) renameSync(SAVED, FILE);
} else {
  console.error('usage: node scripts/pack-manifest.js strip|restore');
  process.exit(2);
}
