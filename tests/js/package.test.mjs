// SPDX-License-Identifier: Apache-2.0
// The holdpoint package as installed: its entry points load, and the
// committed dist/ is exactly what its sources compile to.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'resources', 'integrations', 'js');

test('every entry point loads', async () => {
  const root = await import('holdpoint');
  assert.equal(typeof root.HoldpointClient, 'function');
  assert.equal(typeof (await import('holdpoint/openai-agents')).guardTool, 'function');
  assert.equal(typeof (await import('holdpoint/ai-sdk')).holdpointToolApproval, 'function');
  assert.equal(typeof (await import('holdpoint/langchain')).HoldpointHITL, 'function');
});

test('the package has exactly one runtime dependency, ws, pinned', () => {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(manifest.dependencies), ['ws']);
  assert.match(manifest.dependencies.ws, /^\d+\.\d+\.\d+$/);
  assert.equal(manifest.scripts?.prepare, undefined, 'installing must not need a build step');
});

test('dist/ is what src/ compiles to', async () => {
  const tsc = join(packageDir, 'node_modules', 'typescript', 'bin', 'tsc');
  // A check that cannot run is a failure: CMake registers this suite only
  // with TypeScript installed, so a missing compiler here is a broken install.
  assert.ok(existsSync(tsc), 'TypeScript is not installed in resources/integrations/js: run npm ci there');
  const out = mkdtempSync(join(tmpdir(), 'holdpoint-dist-'));
  try {
    await run(process.execPath, [tsc, '-p', join(packageDir, 'tsconfig.json'), '--outDir', out]);
    const built = readdirSync(out).sort();
    const committed = readdirSync(join(packageDir, 'dist')).sort();
    assert.deepEqual(committed, built, 'dist/ has other files than a fresh build');
    for (const file of built) {
      assert.equal(readFileSync(join(packageDir, 'dist', file), 'utf8'), readFileSync(join(out, file), 'utf8'),
        `dist/${file} differs from a fresh build: run npm run build in resources/integrations/js`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
