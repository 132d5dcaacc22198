/**
 * `sandbox.allowedHosts` end to end under real bubblewrap: a command in a sandbox without
 * network (`--unshare-net`) reaches the allowed loopback server of the host through the proxy
 * (the bridge started by networkSetup's prefix, the variables of its `env`, the binds of its
 * `args`), gets 403 for the other one, and cannot connect to either directly. A bridge that
 * cannot start stops the command with exit 125 and a message, under sh and bash alike.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import type { SandboxNetworkRequest } from '../../src/sandbox/contract.js';
import {
  type NetworkProxy,
  type ProxySocket,
  startNetworkProxy,
} from '../../src/sandbox/network-proxy.js';
import { type NetworkSetup, networkSetup } from '../../src/sandbox/sandbox-network.js';
import { type NamedServer, namedServer } from './proxy-servers.js';

let allowed: NamedServer;
let other: NamedServer;
let network: NetworkProxy;
let proxy: ProxySocket;
const reported: SandboxNetworkRequest[] = [];

before(async () => {
  allowed = await namedServer('allowed');
  other = await namedServer('other');
  network = startNetworkProxy({ allowedHosts: [`127.0.0.1:${allowed.port}`] });
  proxy = network.listen((request) => reported.push(request));
});

after(async () => {
  await network.close();
  allowed.server.close();
  other.server.close();
});

/** Runs `shell -c command` under bwrap without network, with the proxy's setup; its output. */
function sandboxed(
  shell: string,
  command: string,
  setup: NetworkSetup,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const environment = Object.entries(setup.env).flatMap(([name, value]) => [
    '--setenv',
    name,
    value,
  ]);
  const child = spawn(
    'bwrap',
    [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      '--die-with-parent',
      ...setup.args,
      ...environment,
      '--',
      ...setup.prefix,
      shell,
      '-c',
      command,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A node script for inside the sandbox: GETs each absolute URL through $HTTP_PROXY by hand
 * (Node 20's fetch ignores proxy variables), then tries a direct connection to `direct`; prints
 * one JSON line of what happened.
 */
function probe(urls: string[], direct: number): string {
  const script = `
const http = require('node:http');
const proxy = new URL(process.env.HTTP_PROXY);
const get = (url) => new Promise((resolve) => {
  http.get({ host: proxy.hostname, port: proxy.port, path: url }, (response) => {
    let body = '';
    response.on('data', (chunk) => { body += chunk; });
    response.on('end', () => resolve({ status: response.statusCode, body }));
  }).on('error', (error) => resolve({ error: error.code }));
});
const directly = () => new Promise((resolve) => {
  http.get({ host: '127.0.0.1', port: ${direct}, path: '/' }, () => resolve('connected'))
    .on('error', (error) => resolve(error.code));
});
(async () => {
  const answers = [];
  for (const url of ${JSON.stringify(urls)}) answers.push(await get(url));
  console.log(JSON.stringify({ proxy: process.env.HTTP_PROXY, answers, direct: await directly() }));
})();
`;
  return `'${process.execPath}' -e '${script.replaceAll("'", `'\\''`)}'`;
}

test('a sandboxed command reaches exactly the allowed host through the proxy, and nothing directly', async () => {
  const setup = networkSetup({ kind: 'proxy', socketPath: proxy.socketPath, port: 3128 });
  const from = reported.length;
  const run = await sandboxed(
    '/bin/sh',
    probe(
      [`http://127.0.0.1:${allowed.port}/inside`, `http://127.0.0.1:${other.port}/inside`],
      allowed.port,
    ),
    setup,
  );
  assert.equal(run.stderr, '');
  assert.equal(run.code, 0);
  const result = JSON.parse(run.stdout) as {
    proxy: string;
    answers: { status: number; body: string }[];
    direct: string;
  };
  assert.equal(result.proxy, 'http://127.0.0.1:3128');
  assert.deepEqual(result.answers[0], { status: 200, body: 'allowed GET /inside' });
  assert.equal(result.answers[1]?.status, 403);
  assert.match(result.answers[1]?.body ?? '', /sandbox\.allowedHosts/);
  // Inside the sandbox's own network namespace nothing listens on the host's port.
  assert.equal(result.direct, 'ECONNREFUSED');
  assert.deepEqual(reported.slice(from), [
    { host: '127.0.0.1', port: allowed.port, method: 'GET', allowed: true },
    { host: '127.0.0.1', port: other.port, method: 'GET', allowed: false },
  ]);
});

test('when the bridge cannot start the command does not run: exit 125 and why, under sh and bash', async () => {
  const setup = networkSetup(
    { kind: 'proxy', socketPath: proxy.socketPath, port: 3128 },
    { node: '/nonexistent/node' },
  );
  for (const shell of ['/bin/sh', '/bin/bash']) {
    const run = await sandboxed(shell, 'echo the command ran', setup);
    assert.equal(run.code, 125, shell);
    assert.equal(run.stdout, '', shell);
    assert.match(
      run.stderr,
      /^loom: the sandbox's network proxy did not start: .*nonexistent/,
      shell,
    );
  }
});
