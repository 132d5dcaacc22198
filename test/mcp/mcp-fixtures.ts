/**
 * The test suite's MCP servers (test/mcp/fixtures, written with the MCP SDK, and the official
 * reference servers): declarations of the stdio ones for config, and HTTP ones started as their
 * own processes on loopback, ended by the test. Waits on the server's own "listening" line,
 * never on time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { resolve } from 'node:path';

export const STDIO_SERVER = resolve('test/mcp/fixtures/stdio-server.mjs');
export const SILENT_SERVER = resolve('test/mcp/fixtures/silent-server.mjs');
const HTTP_SERVER = resolve('test/mcp/fixtures/http-server.mjs');

/** A config.yaml server entry (as YAML flow text) running the stdio fixture as `name`. */
export function stdioServerYaml(name: string, pidFile: string): string {
  return `{ command: ${JSON.stringify(process.execPath)}, args: ${JSON.stringify([STDIO_SERVER, name, pidFile])} }`;
}

/** The process ids a fixture appended to its pid file, in start order. */
export function startedPids(pidFile: string): number[] {
  return readFileSync(pidFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map(Number);
}

export interface HttpServer {
  url: string;
  child: ChildProcess;
  /** Resolves once the server's standard output has printed a line matching `pattern`. */
  waitForOutput?(pattern: RegExp): Promise<void>;
  /** Ends the server's process; resolves once it has ended. */
  stop(): Promise<void>;
}

/** Starts the HTTP fixture (requiring `Bearer token` when given); the caller stops it. */
export async function startHttpServer(token?: string): Promise<HttpServer> {
  const child = spawn(process.execPath, [HTTP_SERVER], {
    env: { ...process.env, ...(token !== undefined ? { MCP_TEST_TOKEN: token } : {}) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ended = new Promise<void>((resolveEnd) => child.on('close', () => resolveEnd()));
  const port = await new Promise<string>((resolvePort, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /listening (\d+)/.exec(text);
      if (match?.[1]) resolvePort(match[1]);
    });
    ended.then(() => reject(new Error(`the HTTP MCP server ended before listening: ${text}`)));
  });
  const stop = async () => {
    child.kill();
    await ended;
  };
  return { url: `http://127.0.0.1:${port}/mcp`, child, stop };
}

/** The official reference servers (dev dependencies), run with this Node on their files. */
export const EVERYTHING_SERVER = resolve(
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
export const FILESYSTEM_SERVER = resolve(
  'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);
export const CHANGING_SERVER = resolve('test/mcp/fixtures/changing-server.mjs');

/** A loopback port nothing listens on now (the OS's pick, released for the server to take). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolveListen) => probe.listen(0, '127.0.0.1', resolveListen));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolveClose) => probe.close(resolveClose));
  return port;
}

/**
 * The everything server as its own process over streamable HTTP (`/mcp`) or HTTP+SSE (`/sse`),
 * on a free port (its `PORT`); resolves once it says it listens. The caller stops it.
 */
export async function startEverythingServer(mode: 'streamableHttp' | 'sse'): Promise<HttpServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_SERVER, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Read, so the server never blocks on a full pipe; `waitForOutput` watches it.
  child.stdout?.resume();
  const ended = new Promise<void>((resolveEnd) => child.on('close', () => resolveEnd()));
  await new Promise<void>((resolveListening, reject) => {
    let text = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (/listening on port|running on port/.test(text)) resolveListening();
    });
    ended.then(() => reject(new Error(`the everything server ended before listening: ${text}`)));
  });
  const stop = async () => {
    child.kill();
    await ended;
  };
  let printed = '';
  const watchers = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    printed += chunk.toString('utf8');
    for (const watcher of [...watchers]) watcher();
  });
  const waitForOutput = (pattern: RegExp) =>
    new Promise<void>((resolveSeen) => {
      const watcher = () => {
        if (!pattern.test(printed)) return;
        watchers.delete(watcher);
        resolveSeen();
      };
      watchers.add(watcher);
      watcher();
    });
  const path = mode === 'sse' ? '/sse' : '/mcp';
  return { url: `http://127.0.0.1:${port}${path}`, child, stop, waitForOutput };
}
