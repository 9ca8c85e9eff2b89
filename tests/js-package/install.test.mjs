// SPDX-License-Identifier: Apache-2.0
// The holdpoint npm package as a user gets it: resources/packaging/npm-pack.sh
// builds the tarball, which must hold only the package's manifest, README,
// LICENSE and dist/ (.js and .d.ts), at HOLDPOINT_VERSION (CMake's project
// version), and pass `npm publish --dry-run` without a warning. A fresh
// project then installs it, type-checks the programs in consumer/ (one per
// entry point) against its typings with the SDKs installed here, and runs
// each against a real headless console whose policy allows read_note and
// denies delete_note (tests/js/console.mjs).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Console } from '../js/console.mjs';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const packageDir = join(root, 'resources', 'integrations', 'js');
const packScript = join(root, 'resources', 'packaging', 'npm-pack.sh');
const installed = join(here, 'node_modules');
const tsc = join(installed, 'typescript', 'bin', 'tsc');
const VERSION = process.env.HOLDPOINT_VERSION;
assert.ok(VERSION, 'HOLDPOINT_VERSION must be set (CTest passes the project version)');

// What a user's project installs next to holdpoint: the SDKs (and their
// own dependencies, resolved from here), zod and Node's typings.
const SDKS = ['@openai/agents', 'ai', 'langchain', '@langchain/core', '@langchain/langgraph', 'zod', '@types/node'];
const PROGRAMS = ['client', 'openai-agents', 'ai-sdk', 'langchain'];
const STEP_TIMEOUT_MS = 120000;

let work;
let tarball;

// Runs a command; on failure the assertion carries its output.
async function sh(what, file, args, options = {}) {
  try {
    return await run(file, args, { timeout: STEP_TIMEOUT_MS, maxBuffer: 16 << 20, ...options });
  } catch (e) {
    assert.fail(`${what} failed (${e.killed ? 'timed out' : `exit ${e.code}`}):\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

function sourceSnapshot() {
  const files = (dir) => readdirSync(dir).sort();
  return {
    top: files(packageDir),
    dist: files(join(packageDir, 'dist')),
    manifest: readFileSync(join(packageDir, 'package.json'), 'utf8'),
  };
}

before(async () => {
  assert.ok(existsSync(tsc), 'TypeScript is not installed in tests/js-package: run npm ci there');
  work = realpathSync(mkdtempSync(join(tmpdir(), 'holdpoint-js-package-')));
  const source = sourceSnapshot();
  const { stdout } = await sh('npm-pack.sh', 'bash', [packScript, join(work, 'out'), VERSION]);
  tarball = stdout.trim().split('\n').pop();
  assert.equal(tarball, join(work, 'out', `holdpoint-${VERSION}.tgz`), `npm-pack.sh printed ${stdout}`);
  assert.ok(existsSync(tarball), `${tarball} was not written`);
  assert.deepEqual(sourceSnapshot(), source, 'npm-pack.sh changed resources/integrations/js');
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the tarball holds the manifest, README, LICENSE and dist/ .js and .d.ts, nothing else', async () => {
  const { stdout } = await sh('tar tzf', 'tar', ['tzf', tarball]);
  const listed = stdout.split('\n').filter(Boolean).sort();
  const dist = readdirSync(join(packageDir, 'dist')).filter((f) => /\.(js|d\.ts)$/.test(f));
  const expected = ['package/package.json', 'package/README.md', 'package/LICENSE', ...dist.map((f) => `package/dist/${f}`)].sort();
  assert.deepEqual(listed, expected);
  // Every entry point's code and typings are in it.
  const manifest = JSON.parse((await sh('tar xzf', 'tar', ['xzfO', tarball, 'package/package.json'])).stdout);
  for (const [entry, target] of Object.entries(manifest.exports)) {
    for (const file of typeof target === 'string' ? [target] : [target.types, target.default]) {
      assert.ok(listed.includes(`package/${file.replace(/^\.\//, '')}`), `${entry} points at ${file}, which is not in the tarball`);
    }
  }
});

test('the tarball is at HOLDPOINT_VERSION, with the project LICENSE and an Apache-2.0 manifest', async () => {
  const manifest = JSON.parse((await sh('tar xzf', 'tar', ['xzfO', tarball, 'package/package.json'])).stdout);
  assert.equal(manifest.version, VERSION);
  assert.equal(manifest.name, 'holdpoint');
  assert.equal(manifest.license, 'Apache-2.0');
  assert.equal(manifest.scripts?.prepare ?? manifest.scripts?.install ?? manifest.scripts?.postinstall, undefined,
    'installing must run no script');
  const license = (await sh('tar xzf', 'tar', ['xzfO', tarball, 'package/LICENSE'])).stdout;
  assert.equal(license, readFileSync(join(root, 'LICENSE'), 'utf8'));
  for (const [name, meta] of Object.entries(manifest.peerDependenciesMeta ?? {})) {
    assert.ok(name in manifest.peerDependencies, `${name} has peerDependenciesMeta but no range`);
    assert.equal(meta.optional, true, `the peer dependency ${name} must be optional`);
  }
});

test('npm publish --dry-run takes the package without a warning', async () => {
  // Offline, against a registry address nothing answers, with a token made
  // up for it: the dry run reads no credentials and reaches no registry,
  // and does not warn that nobody is logged in. What is left to warn about
  // is the package itself (a manifest npm corrects, a missing file).
  const registry = 'http://127.0.0.1:9/';
  const args = ['publish', '--dry-run', '--offline', `--registry=${registry}`, '--//127.0.0.1:9/:_authToken=dry-run'];
  const unpacked = join(work, 'unpacked');
  mkdirSync(unpacked);
  await sh('tar xzf', 'tar', ['xzf', tarball, '-C', unpacked]);
  // The folder as well as the tarball: only a folder's manifest is checked
  // for what npm would correct ("npm pkg fix").
  for (const target of [tarball, join(unpacked, 'package')]) {
    const { stdout, stderr } = await sh(`npm publish --dry-run ${target}`, 'npm', [...args, target], { cwd: work });
    const warnings = `${stdout}\n${stderr}`.split('\n').filter((line) => /^npm (warn|error)/i.test(line));
    assert.deepEqual(warnings, [], `npm publish --dry-run ${target} warned`);
    assert.match(stdout, new RegExp(`^\\+ holdpoint@${VERSION.replace(/\./g, '\\.')}$`, 'm'));
  }
});

test('a fresh project installs the tarball, type-checks against its typings, and each program gets the console\'s decisions', async (t) => {
  const project = join(work, 'consumer');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'holdpoint-consumer', private: true, type: 'module' }));
  for (const file of readdirSync(join(here, 'consumer')).filter((f) => f.endsWith('.ts') || f === 'tsconfig.json')) {
    copyFileSync(join(here, 'consumer', file), join(project, file));
  }
  // An ordinary install, as a user's is: ws, the one dependency, is resolved
  // from the registry (or from npm's cache when it holds it) at the exact
  // version the manifest pins. Nothing here may assume what a cache holds:
  // a new machine's is empty.
  await sh('npm install of the tarball', 'npm', ['install', '--no-audit', '--no-fund', tarball], { cwd: project });
  const manifest = JSON.parse(readFileSync(join(project, 'node_modules', 'holdpoint', 'package.json'), 'utf8'));
  assert.equal(manifest.version, VERSION);
  const wsManifest = join(project, 'node_modules', 'ws', 'package.json');
  assert.ok(existsSync(wsManifest), 'ws was not installed with holdpoint');
  assert.equal(JSON.parse(readFileSync(wsManifest, 'utf8')).version, manifest.dependencies.ws,
    'the tarball\'s manifest pins ws; the install must take exactly that version');
  // The lock the install wrote names holdpoint's one dependency and where it came from.
  const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8'));
  assert.deepEqual(Object.keys(lock.packages['node_modules/holdpoint'].dependencies ?? {}), ['ws']);
  assert.match(lock.packages['node_modules/ws'].integrity ?? '', /^sha512-/, 'ws was installed without an integrity hash');
  assert.equal(existsSync(join(project, 'node_modules', 'holdpoint', 'src')), false);
  // The optional peers are not installed by npm; the user's own are. After
  // the install, so that npm does not prune them as extraneous.
  for (const sdk of SDKS) {
    assert.ok(existsSync(join(installed, sdk, 'package.json')), `${sdk} is not installed in tests/js-package: run npm ci there`);
    mkdirSync(dirname(join(project, 'node_modules', sdk)), { recursive: true });
    symlinkSync(join(installed, sdk), join(project, 'node_modules', sdk), 'dir');
  }

  await t.test('tsc --noEmit: strict, NodeNext, library typings checked too', async () => {
    await sh('tsc --noEmit', process.execPath, [tsc, '-p', project, '--noEmit']);
  });
  await sh('tsc (emit)', process.execPath, [tsc, '-p', project, '--noCheck']);

  const hp = new Console();
  await hp.start();
  t.after(() => hp.stop());
  const runProgram = async (name) => {
    const { stdout } = await sh(`the ${name} program`, process.execPath, [join(project, 'out', `${name}.js`)], {
      cwd: project,
      env: { ...process.env, HOLDPOINT_DATA_DIR: hp.dataDir, OPENAI_AGENTS_DISABLE_TRACING: '1' },
    });
    const last = stdout.trim().split('\n').pop();
    try {
      return JSON.parse(last);
    } catch {
      assert.fail(`the ${name} program printed no JSON result:\n${stdout}`);
    }
  };
  assert.deepEqual(readdirSync(join(project, 'out')).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3)).sort(),
    [...PROGRAMS].sort());

  await t.test('client', async () => {
    assert.deepEqual(await runProgram('client'), {
      read_note: 'allow {"path":"a.txt"}',
      delete_note: 'deny: notes are never deleted',
      write_note: 'modify {"path":"sandbox/out.txt","text":"hi"}',
    });
  });
  await t.test('openai-agents', async () => {
    assert.deepEqual(await runProgram('openai-agents'), {
      halted: false,
      finalOutput: 'done',
      read_note: 'read_note ran on a.txt',
      delete_note: 'Denied by Holdpoint: notes are never deleted',
    });
  });
  await t.test('ai-sdk', async () => {
    assert.deepEqual(await runProgram('ai-sdk'), {
      read_note: { type: 'text', value: 'read_note ran on a.txt' },
      delete_note: { type: 'execution-denied', reason: 'notes are never deleted' },
      text: 'done',
    });
  });
  await t.test('langchain', async () => {
    assert.deepEqual(await runProgram('langchain'), {
      halted: false,
      read_note: 'read_note ran on a.txt',
      delete_note: 'Denied by Holdpoint: notes are never deleted',
    });
  });
});
