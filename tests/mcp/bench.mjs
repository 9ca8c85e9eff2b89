// holdpoint-bench's mcp scenario: a tools/call round trip through
// `holdpoint-ctl mcp-proxy` (auto-allowed by the console) next to the same
// call made direct to the same reference filesystem server. Prints one JSON
// object; run by holdpoint-bench with HOLDPOINT_BIN, HOLDPOINT_CTL_BIN and
// BENCH_CALLS set.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, writeFileSync, existsSync, realpathSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const require = createRequire(import.meta.url);
const serverEntry = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const { HOLDPOINT_BIN, HOLDPOINT_CTL_BIN } = process.env;
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

async function measure(client) {
  const latencies = [];
  const request = { name: 'read_text_file', arguments: { path: join(root, 'hello.txt') } };
  for (let i = 0; i < Math.ceil(calls / 10); i++) await client.callTool(request); // warm up
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    const result = await client.callTool(request);
    latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (result.isError) throw new Error('the call failed: ' + JSON.stringify(result));
  }
  return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

try {
  await waitFor(() => existsSync(join(dataDir, 'endpoint.json')));
  const direct = await connect(process.execPath, [serverEntry, root]);
  const proxied = await connect(HOLDPOINT_CTL_BIN, ['--data-dir', dataDir, 'mcp-proxy', '--', process.execPath, serverEntry, root]);
  await proxied.listTools();
  const directMs = await measure(direct);
  const proxiedMs = await measure(proxied);
  console.log(JSON.stringify({ calls, direct_ms: directMs, proxied_ms: proxiedMs }));
  await direct.close();
  await proxied.close();
} finally {
  consoleProcess.kill('SIGTERM');
  await new Promise((r) => consoleProcess.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}
