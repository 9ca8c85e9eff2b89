// SPDX-License-Identifier: Apache-2.0
// Finding the console: endpoint.json in the data directory, by the same
// rules as holdpoint-ctl and the Python adapters.

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConsoleUnavailableError, NoConsoleError } from './errors.js';

/** What endpoint.json holds (PROTOCOL.md, "Connecting"). */
export interface Endpoint {
  url: string;
  agent_token: string;
  pid?: number;
  protocol?: number;
}

/**
 * The data directory: `dataDir` if given, else `$HOLDPOINT_DATA_DIR`, else
 * `$XDG_DATA_HOME/holdpoint`, else `~/.local/share/holdpoint`.
 */
export function resolveDataDir(dataDir?: string): string {
  if (dataDir) return dataDir;
  const fromEnv = process.env.HOLDPOINT_DATA_DIR;
  if (fromEnv) return fromEnv;
  const base = process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(base, 'holdpoint');
}

function isLoopback(url: URL): boolean {
  const host = url.hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
}

/** Reads and checks endpoint.json; throws ConsoleUnavailableError with what to do when it cannot. */
export function findEndpoint(dataDir?: string): Endpoint {
  const path = join(resolveDataDir(dataDir), 'endpoint.json');
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new (why === 'ENOENT' ? NoConsoleError : ConsoleUnavailableError)(
      `no console found: cannot read ${path} (${why}); start holdpoint, or pass dataDir / set HOLDPOINT_DATA_DIR`);
  }
  const endpoint = parsed as Partial<Endpoint> | null;
  if (!endpoint || typeof endpoint !== 'object' || typeof endpoint.url !== 'string' ||
      typeof endpoint.agent_token !== 'string' || endpoint.agent_token === '') {
    throw new ConsoleUnavailableError(`${path} is not a valid endpoint file (expected url and agent_token)`);
  }
  let url: URL;
  try {
    url = new URL(endpoint.url);
  } catch {
    throw new ConsoleUnavailableError(`${path}: url is not a URL`);
  }
  if (url.protocol !== 'ws:' || !isLoopback(url)) {
    throw new ConsoleUnavailableError(`${path}: url ${endpoint.url} is not a loopback ws:// address; refusing it`);
  }
  return endpoint as Endpoint;
}
