/**
 * The bridge (src/sandbox/proxy-bridge.mjs) on the host's loopback, outside any sandbox: it
 * says `ready PORT` once listening and lets its stdout go, pipes TCP connections to the proxy's
 * socket, exits when the process it watches is gone, and says why when it cannot start.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import {
  type NetworkProxy,
  type ProxySocket,
  startNetworkProxy,
} from '../../src/sandbox/network-proxy.js';
import { bridgeScriptPath } from '../../src/sandbox/sandbox-network.js';
import { type NamedServer, namedServer } from './proxy-servers.js';

let allowed: NamedServer;
let other: NamedServer;
let network: NetworkProxy;
let proxy: ProxySocket;

before(async () => {
  allowed = await namedServer('allowed');
  other = await namedServer('other');
  network = startNetworkProxy({ allowedHosts: [`127.0.0.1:${allowed.port}`] });
  proxy = network.listen();
});

after(async () => {
  await network.close();
  allowed.server.close();
  other.server.close();
});

/** Everything `child` writes on stdout, once stdout ends. */
async function stdoutOf(child: ChildProcess): Promise<string> {
  let text = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    text += chunk;
  });
  await once(child.stdout ?? child, 'end');
  return text;
}

function getThrough(port: number, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, path: url }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

test('the bridge pipes loopback TCP to the proxy and exits when the watched process ends', async () => {
  // The watched process: a `cat` that lives until its stdin closes.
  const watched = spawn('cat', [], { stdio: ['pipe', 'ignore', 'ignore'] });
  const bridge = spawn(
    process.execPath,
    [bridgeScriptPath(), proxy.socketPath, '0', String(watched.pid)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = once(bridge, 'exit');
  // stdout ends after the one line: the bridge keeps no stream of its starter open.
  const [said] = await Promise.all([stdoutOf(bridge), once(bridge.stderr, 'end')]);
  const ready = /^ready (\d+)\n$/.exec(said);
  assert.ok(ready, `the bridge said ${JSON.stringify(said)}`);
  const port = Number(ready[1]);
  const through = await getThrough(port, `http://127.0.0.1:${allowed.port}/via-bridge`);
  assert.deepEqual(through, { status: 200, body: 'allowed GET /via-bridge' });
  const refused = await getThrough(port, `http://127.0.0.1:${other.port}/`);
  assert.equal(refused.status, 403);
  assert.equal(bridge.exitCode, null);
  watched.stdin.end();
  const [code] = await exited;
  assert.equal(code, 0);
});

test('a bridge that cannot start says why on stdout and exits 1', async () => {
  const bridge = spawn(process.execPath, [bridgeScriptPath(), proxy.socketPath], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(bridge, 'exit');
  assert.match(
    await stdoutOf(bridge),
    /^loom proxy bridge: usage: node proxy-bridge\.mjs SOCKET PORT/,
  );
  assert.deepEqual(await exited, [1, null]);
});
