#!/usr/bin/env node
/*
 * npm run test:mutation [-- <target>… | --all]: Stryker over the security and parsing code, one
 * target at a time (stryker/<target>.config.mjs). With no argument it runs the targets CI runs,
 * those that finish in a few minutes together; --all runs every target. It stops at the first
 * target whose score is under the threshold (stryker/target.mjs), with Stryker's exit code.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The security targets, a few minutes together; formatting and sealed-transport (most of an hour each) run on demand.
const CI_TARGETS = ['auth', 'bot-delivery'];

const all = readdirSync(join(root, 'stryker'))
  .filter((file) => file.endsWith('.config.mjs'))
  .map((file) => file.slice(0, -'.config.mjs'.length))
  .sort();
const args = process.argv.slice(2);
const targets = args.includes('--all') ? all : args.length > 0 ? args : CI_TARGETS;
const unknown = targets.filter((target) => !all.includes(target));
if (unknown.length > 0) {
  console.error(`unknown target(s): ${unknown.join(', ')}; known: ${all.join(', ')}`);
  process.exit(2);
}

for (const target of targets) {
  const started = Date.now();
  console.log(`\n== mutation testing: ${target}`);
  const run = spawnSync('npx', ['stryker', 'run', `stryker/${target}.config.mjs`], { cwd: root, stdio: 'inherit' });
  console.log(`== ${target}: exit ${run.status} after ${Math.round((Date.now() - started) / 1000)} s`);
  if (run.status !== 0) process.exit(run.status ?? 1);
}
