/**
 * `Sandbox` with `sandbox.allowedHosts`, planned only (nothing runs under bwrap here): the proxy
 * starts at the first command that needs it and is shared, each command gets a socket of its own
 * bound into the sandbox (removed at the command's end), its requests are emitted on the calling
 * scope as `sandbox/network`, an MCP server (no report) gets no proxy, and `dispose()` removes
 * the proxy's folder and its exit listener.
 */
import assert from 'node:assert/strict';
import { existsSync, lstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, before, test } from 'node:test';
import { Context } from '../../src/core/context.js';
import type { ToolExecution } from '../../src/core/tool-contract.js';
import { Sandbox } from '../../src/sandbox/command-sandbox.js';
import {
  DEFAULT_SANDBOX_SETTINGS,
  type SandboxNetworkRequest,
  sandboxNetworkRequested,
} from '../../src/sandbox/contract.js';
import { SANDBOX_PROXY_SOCKET } from '../../src/sandbox/sandbox-network.js';
import type { SandboxLaunch } from '../../src/tools/command-sandbox.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { type NamedServer, namedServer, proxiedRequest } from './proxy-servers.js';

let allowed: NamedServer;

before(async () => {
  allowed = await namedServer('allowed');
});

after(() => allowed.server.close());

function execution(context: Context): ToolExecution {
  return {
    callId: 'call-1',
    name: 'bash',
    arguments: { command: 'true' },
    signal: new AbortController().signal,
    context,
    agentId: 'agent-1',
    turnId: 'turn-1',
    concludeTurn() {},
    token: Object.freeze({}),
  };
}

/** The host path bound at the sandbox's proxy socket, if any. */
function boundSocket(launch: SandboxLaunch): string | undefined {
  const at = launch.launcher.indexOf(SANDBOX_PROXY_SOCKET);
  return at > 1 && launch.launcher[at - 2] === '--ro-bind' ? launch.launcher[at - 1] : undefined;
}

test('one shared proxy, a socket per command reporting on its scope; no proxy for an MCP server; dispose removes it', async () => {
  const workspace = temporaryFolder('loom-proxy-ws-');
  const sandbox = new Sandbox({
    settings: { ...DEFAULT_SANDBOX_SETTINGS, allowedHosts: [`127.0.0.1:${allowed.port}`] },
    loomHome: temporaryFolder('loom-home-'),
  });
  const context = new Context().child('agent-1');
  const seen: SandboxNetworkRequest[] = [];
  context.on(sandboxNetworkRequested, (request) => {
    seen.push(request);
  });
  const prepare = () =>
    sandbox.prepare({
      cwd: workspace,
      env: { PATH: process.env.PATH ?? '' },
      outsideSandbox: false,
      execution: execution(context),
    });

  const first = prepare();
  const second = prepare();
  assert.equal(first.kind, 'sandboxed');
  assert.equal(second.kind, 'sandboxed');
  if (first.kind !== 'sandboxed' || second.kind !== 'sandboxed') return;
  const socket = boundSocket(first.launch) ?? '';
  const other = boundSocket(second.launch) ?? '';
  assert.ok(lstatSync(socket).isSocket(), first.launch.launcher.join(' '));
  assert.notEqual(other, socket);
  const folder = dirname(socket);
  assert.equal(dirname(other), folder, 'the proxy is shared');
  assert.equal(lstatSync(folder).mode & 0o777, 0o700);
  assert.ok(!folder.startsWith(workspace));
  assert.match(first.launch.env.HTTPS_PROXY ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(first.launch.env.NO_PROXY, '');
  assert.ok(first.launch.launcher.includes('--unshare-net'));

  const answer = await proxiedRequest(socket, `http://127.0.0.1:${allowed.port}/x`);
  assert.equal(answer.status, 200);
  const refused = await proxiedRequest(other, `http://localhost:${allowed.port}/x`);
  assert.equal(refused.status, 403);
  assert.deepEqual(seen, [
    { host: '127.0.0.1', port: allowed.port, method: 'GET', allowed: true },
    { host: 'localhost', port: allowed.port, method: 'GET', allowed: false },
  ]);

  first.launch.ended();
  assert.equal(existsSync(socket), false, "the command's socket goes with it");
  assert.ok(existsSync(other));

  // An MCP server: no session to log in, so no proxy and no network.
  const server = sandbox.launch(workspace, { PATH: process.env.PATH ?? '' });
  assert.equal(server.kind, 'sandboxed');
  if (server.kind !== 'sandboxed') return;
  assert.equal(boundSocket(server.launch), undefined);
  assert.equal(server.launch.env.HTTP_PROXY, undefined);
  assert.ok(server.launch.launcher.includes('--unshare-net'));
  server.launch.ended();

  const exitListeners = process.listenerCount('exit');
  await sandbox.dispose();
  assert.equal(existsSync(folder), false);
  assert.equal(process.listenerCount('exit'), exitListeners - 1, "the proxy's exit listener goes");
  second.launch.ended();
});
