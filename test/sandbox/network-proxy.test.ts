/**
 * Loom's proxy for `sandbox.allowedHosts` on its own, with loopback servers: only the listed
 * host:port passes, by plain HTTP and by CONNECT; the others get 403 naming the host and the
 * config key; an unreachable upstream gets 502; every decision is reported to the socket it came
 * in on (each command gets its own).
 */
import assert from 'node:assert/strict';
import { existsSync, lstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, before, test } from 'node:test';
import type { SandboxNetworkRequest } from '../../src/sandbox/contract.js';
import {
  type NetworkProxy,
  type ProxySocket,
  startNetworkProxy,
} from '../../src/sandbox/network-proxy.js';
import {
  closedPort,
  type NamedServer,
  namedServer,
  proxiedConnect,
  proxiedRequest,
} from './proxy-servers.js';

let first: NamedServer;
let second: NamedServer;
let refusing: number;
let network: NetworkProxy;
let proxy: ProxySocket;
const reported: SandboxNetworkRequest[] = [];

before(async () => {
  first = await namedServer('first');
  second = await namedServer('second');
  refusing = await closedPort();
  network = startNetworkProxy({
    allowedHosts: [`127.0.0.1:${first.port}`, `127.0.0.1:${refusing}`],
  });
  proxy = network.listen((request) => reported.push(request));
});

after(async () => {
  await network.close();
  first.server.close();
  second.server.close();
});

/** The reports made while `work` ran. */
async function reportsOf(work: () => Promise<void>): Promise<SandboxNetworkRequest[]> {
  const from = reported.length;
  await work();
  return reported.slice(from);
}

test('the socket is in a private folder (0700) of its own', () => {
  assert.equal(dirname(proxy.socketPath), network.folder);
  const folder = lstatSync(network.folder);
  assert.equal(folder.isDirectory(), true);
  assert.equal(folder.mode & 0o777, 0o700);
  assert.equal(lstatSync(proxy.socketPath).isSocket(), true);
});

test('a plain HTTP request reaches the allowed server, with its body, and is reported', async () => {
  let answer: Awaited<ReturnType<typeof proxiedRequest>> | undefined;
  const reports = await reportsOf(async () => {
    answer = await proxiedRequest(proxy.socketPath, `http://127.0.0.1:${first.port}/path?q=1`, {
      method: 'POST',
      body: 'hello',
    });
  });
  assert.equal(answer?.status, 200);
  assert.equal(answer?.body, 'first POST /path?q=1 hello');
  assert.equal(answer?.headers['x-served-by'], 'first');
  assert.deepEqual(reports, [
    { host: '127.0.0.1', port: first.port, method: 'POST', allowed: true },
  ]);
});

test('a plain HTTP request to a host not listed gets 403 naming it and sandbox.allowedHosts', async () => {
  let answer: Awaited<ReturnType<typeof proxiedRequest>> | undefined;
  const reports = await reportsOf(async () => {
    answer = await proxiedRequest(proxy.socketPath, `http://127.0.0.1:${second.port}/secret`);
  });
  assert.equal(answer?.status, 403);
  assert.match(answer?.body ?? '', new RegExp(`127\\.0\\.0\\.1:${second.port}`));
  assert.match(answer?.body ?? '', /sandbox\.allowedHosts/);
  assert.doesNotMatch(answer?.body ?? '', /second/);
  assert.deepEqual(reports, [
    { host: '127.0.0.1', port: second.port, method: 'GET', allowed: false },
  ]);
});

test('a name is not its address: localhost is refused though 127.0.0.1 is listed', async () => {
  const answer = await proxiedRequest(proxy.socketPath, `http://localhost:${first.port}/`);
  assert.equal(answer.status, 403);
  assert.match(answer.body, new RegExp(`localhost:${first.port}`));
});

test('CONNECT opens a tunnel to the allowed server and is reported', async () => {
  let tunnel: { status: number; text: string } | undefined;
  const reports = await reportsOf(async () => {
    tunnel = await proxiedConnect(proxy.socketPath, `127.0.0.1:${first.port}`);
  });
  assert.equal(tunnel?.status, 200);
  assert.match(tunnel?.text ?? '', /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(tunnel?.text ?? '', /first GET \/tunnel$/);
  assert.deepEqual(reports, [
    { host: '127.0.0.1', port: first.port, method: 'CONNECT', allowed: true },
  ]);
});

test('CONNECT to a host not listed gets 403 naming it and sandbox.allowedHosts', async () => {
  let tunnel: { status: number; text: string } | undefined;
  const reports = await reportsOf(async () => {
    tunnel = await proxiedConnect(proxy.socketPath, `127.0.0.1:${second.port}`);
  });
  assert.equal(tunnel?.status, 403);
  assert.match(tunnel?.text ?? '', new RegExp(`127\\.0\\.0\\.1:${second.port}`));
  assert.match(tunnel?.text ?? '', /sandbox\.allowedHosts/);
  assert.deepEqual(reports, [
    { host: '127.0.0.1', port: second.port, method: 'CONNECT', allowed: false },
  ]);
});

test('an allowed upstream that refuses the connection gets 502 naming the error', async () => {
  const plain = await proxiedRequest(proxy.socketPath, `http://127.0.0.1:${refusing}/`);
  assert.equal(plain.status, 502);
  assert.match(plain.body, new RegExp(`127\\.0\\.0\\.1:${refusing}: ECONNREFUSED`));
  const tunnel = await proxiedConnect(proxy.socketPath, `127.0.0.1:${refusing}`);
  assert.equal(tunnel.status, 502);
  assert.match(tunnel.text, /ECONNREFUSED/);
  // The proxy is still there for the next request.
  assert.equal(
    (await proxiedRequest(proxy.socketPath, `http://127.0.0.1:${first.port}/`)).status,
    200,
  );
});

test('requests that are not proxy requests get 400 and are not reported', async () => {
  const reports = await reportsOf(async () => {
    const origin = await proxiedRequest(proxy.socketPath, `http://127.0.0.1:${first.port}/`, {
      target: '/path',
    });
    assert.equal(origin.status, 400);
    assert.match(origin.body, /absolute URLs/);
    const https = await proxiedRequest(proxy.socketPath, `https://127.0.0.1:${first.port}/`);
    assert.equal(https.status, 400);
    assert.match(https.body, /CONNECT/);
    const tunnel = await proxiedConnect(proxy.socketPath, '127.0.0.1');
    assert.equal(tunnel.status, 400);
  });
  assert.deepEqual(reports, []);
});

test('each socket reports its own requests; a closed socket is gone, the others still serve', async () => {
  const mine: SandboxNetworkRequest[] = [];
  const own = network.listen((request) => mine.push(request));
  assert.notEqual(own.socketPath, proxy.socketPath);
  const reports = await reportsOf(async () => {
    assert.equal(
      (await proxiedRequest(own.socketPath, `http://127.0.0.1:${first.port}/own`)).status,
      200,
    );
    assert.equal((await proxiedConnect(own.socketPath, `127.0.0.1:${second.port}`)).status, 403);
  });
  assert.deepEqual(reports, []);
  assert.deepEqual(mine, [
    { host: '127.0.0.1', port: first.port, method: 'GET', allowed: true },
    { host: '127.0.0.1', port: second.port, method: 'CONNECT', allowed: false },
  ]);
  own.close();
  assert.equal(existsSync(own.socketPath), false);
  assert.equal(
    (await proxiedRequest(proxy.socketPath, `http://127.0.0.1:${first.port}/`)).status,
    200,
  );
});

test('a malformed entry stops the start naming it; a failing report is ignored; close() removes the folder', async () => {
  assert.throws(
    () => startNetworkProxy({ allowedHosts: ['example.com:http'] }),
    /sandbox\.allowedHosts: "example\.com:http"/,
  );
  const closing = startNetworkProxy({ allowedHosts: [`127.0.0.1:${first.port}`] });
  const throwing = closing.listen(() => {
    throw new Error('a listener that fails');
  });
  const answer = await proxiedRequest(throwing.socketPath, `http://127.0.0.1:${first.port}/`);
  assert.equal(answer.status, 200);
  const done = closing.close();
  // The folder goes at once (a process `exit` listener cannot wait), the server a moment later.
  assert.equal(existsSync(closing.folder), false);
  await done;
  assert.throws(() => closing.listen(), /proxy is closed/);
});
