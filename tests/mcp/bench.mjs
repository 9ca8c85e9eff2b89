// holdpoint-bench's mcp scenario: a tools/call round trip through
// `holdpoint-ctl mcp-proxy` (auto-allowed by the console) next to the same
// call made direct to the same reference filesystem server, and, when
// PEER_HITL_DIR names a built mcp-hitl-wrapper, through that proxy with
// every tool allowed and its SQLite audit on. The paths are measured
// interleaved, ten calls each in turn, so drift hits them alike. Prints one
// JSON object; run by holdpoint-bench with HOLDPOINT_BIN, HOLDPOINT_CTL_BIN
// and BENCH_CALLS set.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, writeFileSync, existsSync, realpathSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const require = createRequire(import.meta.url);
const serverEntry = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const { HOLDPOINT_BIN, HOLDPOINT_CTL_BIN, PEER_HITL_DIR } = process.env;
const calls = Number(process.env.BENCH_CALLS || 1000);

const work = realpathSync(mkdtempSync(join(tmpdir(), 'holdpoint-mcp-bench-')));
const dataDir = join(work, 'data');
const root = join(work, 'root');
mkdirSync(root);
writeFileSync(join(root, 'hello.txt'), 'hello\n');
const policy = join(work, 'policy.json');
writeFileSync(policy, JSON.stringify({ default: 'ask', guardrails: [
  { type: 'rules', rules: [{ when: { tool: 'read_text_file' }, action: 'allow', reason: 'benchmark' }] }] }));
const consoleProcess = spawn(HOLDPOINT_BIN, ['--headless', '--data-dir', dataDir, '--policy', policy], { stdio: 'ignore' });

async function waitFor(check, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the console');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function connect(command, args) {
  const client = new Client({ name: 'holdpoint-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  return client;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

// Each path: a client and the name its server knows the tool by.
async function measure(paths) {
  const latencies = paths.map(() => []);
  const request = (path) => ({ name: path.tool, arguments: { path: join(root, 'hello.txt') } });
  for (const path of paths) // warm up
    for (let i = 0; i < Math.ceil(calls / 10); i++) await path.client.callTool(request(path));
  for (let done = 0; done < calls; done += 10) {
    for (const [k, path] of paths.entries()) {
      for (let i = 0; i < Math.min(10, calls - done); i++) {
        const start = process.hrtime.bigint();
        const result = await path.client.callTool(request(path));
        latencies[k].push(Number(process.hrtime.bigint() - start) / 1e6);
        if (result.isError) throw new Error(path.name + ': the call failed: ' + JSON.stringify(result));
      }
    }
  }
  return latencies.map((l) => ({ p50: percentile(l, 0.5), p99: percentile(l, 0.99) }));
}

try {
  await waitFor(() => existsSync(join(dataDir, 'endpoint.json')));
  const paths = [
    { name: 'direct', tool: 'read_text_file', client: await connect(process.execPath, [serverEntry, root]) },
    { name: 'proxied', tool: 'read_text_file',
      client: await connect(HOLDPOINT_CTL_BIN, ['--data-dir', dataDir, 'mcp-proxy', '--', process.execPath, serverEntry, root]) },
  ];
  if (PEER_HITL_DIR) {
    // Every tool allowed (no approval destinations), its audit on.
    const config = join(work, 'peer-hitl.json');
    writeFileSync(config, JSON.stringify({
      mcps: { fs: { command: process.execPath, args: [serverEntry, root], tools: '*' } },
      audit: { enabled: true, dbPath: join(work, 'peer-audit.db') },
      logging: { level: 'error' },
    }));
    paths.push({ name: 'peer', tool: 'fs__read_text_file',
      client: await connect(process.execPath, [join(PEER_HITL_DIR, 'dist', 'cli.js'), 'serve', '-c', config]) });
  }
  for (const path of paths) await path.client.listTools();
  const [directMs, proxiedMs, peerMs] = await measure(paths);
  console.log(JSON.stringify({ calls, direct_ms: directMs, proxied_ms: proxiedMs, ...(peerMs ? { peer_ms: peerMs } : {}) }));
  for (const path of paths) await path.client.close();
} finally {
  consoleProcess.kill('SIGTERM');
  await new Promise((r) => consoleProcess.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}
