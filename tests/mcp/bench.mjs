// SPDX-License-Identifier: Apache-2.0
// holdpoint-bench's mcp scenario: a tools/call round trip through
// `holdpoint-ctl mcp-proxy` (auto-allowed by the console) next to the same
// call made direct to the same reference filesystem server, and, when
// PEER_HITL_DIR names a built mcp-hitl-wrapper, through that proxy with
// every tool allowed and its SQLite audit on. The paths are measured
// interleaved, ten calls each in turn, so drift hits them alike. Prints one
// JSON object; run by holdpoint-bench with HOLDPOINT_BIN, HOLDPOINT_CTL_BIN
// and BENCH_CALLS set.
//
// The proxy writes when each hop of each call happened (HOLDPOINT_MCP_TRACE);
// with this side's own send and receive times (the same CLOCK_MONOTONIC,
// through process.hrtime) they give where the added time goes.

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, writeFileSync, readFileSync, existsSync, realpathSync, rmSync, mkdirSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const require = createRequire(import.meta.url);
const serverEntry = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const { HOLDPOINT_BIN, HOLDPOINT_CTL_BIN, PEER_HITL_DIR } = process.env;
const calls = Number(process.env.BENCH_CALLS || 1000);

// Everything, the console's data dir and the peer's audit database
// included, goes under os.tmpdir(): TMPDIR=/dev/shm puts it on tmpfs, where
// a sync costs next to nothing (tests/bench/README.md).
const work = realpathSync(mkdtempSync(join(tmpdir(), 'holdpoint-mcp-bench-')));
const TMPFS_MAGIC = 0x01021994; // statfs(2)
const dataFs = statfsSync(work).type === TMPFS_MAGIC ? 'tmpfs' : 'disk';
const dataDir = join(work, 'data');
const root = join(work, 'root');
mkdirSync(root);
writeFileSync(join(root, 'hello.txt'), 'hello\n');
const policy = join(work, 'policy.json');
const traceFile = join(work, 'proxy-trace.jsonl');
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

async function connect(command, args, env) {
  const client = new Client({ name: 'holdpoint-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore', ...(env ? { env } : {}) }));
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
  // Every call's send and receive times, warm-up included, in call order.
  const call = async (path, measured) => {
    const start = process.hrtime.bigint();
    const result = await path.client.callTool(request(path));
    const end = process.hrtime.bigint();
    if (result.isError) throw new Error(path.name + ': the call failed: ' + JSON.stringify(result));
    path.times?.push({ start, end, measured });
    return Number(end - start) / 1e6;
  };
  for (const path of paths) // warm up
    for (let i = 0; i < Math.ceil(calls / 10); i++) await call(path, false);
  for (let done = 0; done < calls; done += 10) {
    for (const [k, path] of paths.entries()) {
      for (let i = 0; i < Math.min(10, calls - done); i++)
        latencies[k].push(await call(path, true));
    }
  }
  return latencies.map((l) => ({ p50: percentile(l, 0.5), p99: percentile(l, 0.99) }));
}

// The median of each hop of the measured proxied calls, in µs. The proxy
// answers calls one at a time here, so its k-th trace line is the k-th call.
function hops(times, traceFile) {
  const lines = existsSync(traceFile) ? readFileSync(traceFile, 'utf8').split('\n').filter(Boolean).map(JSON.parse) : [];
  if (lines.length !== times.length) return undefined;
  const spans = {
    'client to proxy': (t, h) => h.read - t.start,
    'proxy, to console': (t, h) => h.to_console - h.read,
    'console round trip': (t, h) => h.decision - h.to_console,
    'proxy, to server': (t, h) => h.to_server - h.decision,
    'server round trip': (t, h) => h.server_answer - h.to_server,
    'proxy to client': (t, h) => t.end - h.server_answer,
  };
  return Object.entries(spans).map(([hop, span]) => {
    const values = [];
    times.forEach((t, k) => { if (t.measured) values.push(span({ start: Number(t.start), end: Number(t.end) }, lines[k]) / 1e3); });
    return { hop, us: percentile(values, 0.5) };
  });
}

try {
  await waitFor(() => existsSync(join(dataDir, 'endpoint.json')));
  const paths = [
    { name: 'direct', tool: 'read_text_file', client: await connect(process.execPath, [serverEntry, root]) },
    { name: 'proxied', tool: 'read_text_file', times: [],
      client: await connect(HOLDPOINT_CTL_BIN, ['--data-dir', dataDir, 'mcp-proxy', '--', process.execPath, serverEntry, root],
                            { ...process.env, HOLDPOINT_MCP_TRACE: traceFile }) },
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
  // The proxy writes a call's trace line just after its answer, so the last
  // line may still be on its way when the last call resolves here.
  const traced = () => existsSync(traceFile) ? readFileSync(traceFile, 'utf8').split('\n').filter(Boolean).length : 0;
  await waitFor(() => traced() >= paths[1].times.length, 2000).catch(() => {});
  const hopsUs = hops(paths[1].times, traceFile);
  console.log(JSON.stringify({ calls, data_fs: dataFs, direct_ms: directMs, proxied_ms: proxiedMs, ...(peerMs ? { peer_ms: peerMs } : {}),
    ...(hopsUs ? { proxied_hops_us: hopsUs } : {}) }));
  for (const path of paths) await path.client.close();
} finally {
  consoleProcess.kill('SIGTERM');
  await new Promise((r) => consoleProcess.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}
