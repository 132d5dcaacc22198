/**
 * `sandbox.allowedHosts` through `bin/loom run` with the scripted model (SPEC §11, issue 34's
 * acceptance): with `allowedHosts: [127.0.0.1:PORT_A]` a sandboxed `curl` reaches the server on
 * PORT_A through Loom's proxy, by plain HTTP and through a CONNECT tunnel, from a foreground
 * command, a background job and a subagent alike; the server on PORT_B (same host, other port)
 * gets a 403 naming it and the key, and a direct connection (`--noproxy '*'`) finds no network.
 * Each request is a `sandbox/network` event in the session of the agent whose command made it.
 * The proxy's folder is gone once Loom has exited. A malformed entry stops the start naming it.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { SandboxNetworkRequest } from '../../src/sandbox/contract.js';
import { bashCall, callsThenReply, subagentCall } from '../helpers/scripted-turns.js';
import { ndjsonLines, sessions } from '../helpers/session-files.js';
import { outsideFolder, runCalls, sandboxWorld } from './sandbox-fixture.js';

interface Recorded {
  server: Server;
  port: number;
  /** The paths it was asked for, in order. */
  paths: string[];
}

/** A loopback HTTP server answering `NAME PATH` that records what it was asked. */
async function recordingServer(name: string): Promise<Recorded> {
  const paths: string[] = [];
  const server = createServer((request, response) => {
    paths.push(request.url ?? '');
    response.end(`${name} ${request.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, paths };
}

let named: Recorded;
let other: Recorded;

before(async () => {
  named = await recordingServer('named');
  other = await recordingServer('other');
});

after(() => {
  named.server.close();
  other.server.close();
});

/** `curl` printing the body and then the status on a line of its own. */
const curl = (options: string, url: string) =>
  `curl -sS ${options} -w '\\nstatus %{http_code}\\n' ${url}`;

test('allowedHosts lets exactly the named loopback host through, logged in the asking session', async () => {
  const world = sandboxWorld(`sandbox:\n  allowedHosts: ["127.0.0.1:${named.port}"]\n`);
  const tmp = outsideFolder();
  const namedUrl = `http://127.0.0.1:${named.port}`;
  const otherUrl = `http://127.0.0.1:${other.port}`;
  const calls = {
    plain: curl('', `${namedUrl}/plain`),
    tunnel: curl('--proxytunnel', `${namedUrl}/tunnel`),
    refused: curl('', `${otherUrl}/refused`),
    refusedTunnel: curl('--proxytunnel', `${otherUrl}/refused-tunnel`),
    direct: curl("--noproxy '*'", `${namedUrl}/direct`),
    variables: 'env | grep -i -E "^(https?|all|no)_proxy=" | sort',
    // Where Loom's TMPDIR is not /tmp the proxy's folder would show; it is hidden (empty).
    others: `ls -A ${tmp}/loom-proxy-*; echo listed`,
  };
  const names = Object.keys(calls) as (keyof typeof calls)[];
  const run = await runCalls(
    world,
    [
      ...names.map((name) => bashCall(calls[name])),
      bashCall(curl('', `${namedUrl}/background`), { run_in_background: true }),
      { name: 'job_output', arguments: { job_id: 'bash-1', wait: true, timeout_ms: 60_000 } },
      subagentCall('fetch', 'child-fetch'),
    ],
    { TMPDIR: tmp, NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' },
    [callsThenReply('^child-fetch$', [bashCall(curl('', `${namedUrl}/child`))], 'child done')],
  );
  assert.equal(run.code, 0, run.stderr);
  const result = (name: keyof typeof calls) => run.contents[names.indexOf(name)] ?? '';

  assert.match(result('plain'), /^named \/plain\nstatus 200\n/);
  assert.match(result('tunnel'), /^named \/tunnel\nstatus 200\n/);
  assert.match(
    result('refused'),
    new RegExp(
      `^loom: the sandbox does not allow network access to 127\\.0\\.0\\.1:${other.port}\\. To allow it, add "127\\.0\\.0\\.1:${other.port}" to sandbox\\.allowedHosts`,
    ),
  );
  assert.match(result('refused'), /status 403/);
  assert.match(result('refusedTunnel'), /CONNECT tunnel failed, response 403/);
  assert.match(
    result('refusedTunnel'),
    /\[sandbox: Loom's proxy refused the host: it is not in sandbox\.allowedHosts/,
  );
  assert.match(result('direct'), /Failed to connect to 127\.0\.0\.1 port/);
  assert.match(
    result('direct'),
    /\[sandbox: the command has a network of its own .*only the hosts of sandbox\.allowedHosts are reachable, through Loom's proxy/,
  );
  // Loom's NO_PROXY (loopback excluded) does not reach the command: loopback goes via the proxy.
  assert.match(
    result('variables'),
    /^ALL_PROXY=http:\/\/127\.0\.0\.1:(\d+)\nHTTPS_PROXY=http:\/\/127\.0\.0\.1:\1\nHTTP_PROXY=http:\/\/127\.0\.0\.1:\1\nNO_PROXY=\nall_proxy=http:\/\/127\.0\.0\.1:\1\nhttp_proxy=http:\/\/127\.0\.0\.1:\1\nhttps_proxy=http:\/\/127\.0\.0\.1:\1\nno_proxy=\n/,
  );
  assert.match(result('others'), /^listed\n/);
  assert.match(run.contents[names.length + 1] ?? '', /^named \/background\nstatus 200\n/);
  assert.match(run.contents.at(-1) ?? '', /child done/);

  // Only the named server was reached, and never directly.
  assert.deepEqual([...named.paths].sort(), ['/background', '/child', '/plain', '/tunnel']);
  assert.deepEqual(other.paths, []);

  const allowed = { host: '127.0.0.1', port: named.port, allowed: true };
  const refused = { host: '127.0.0.1', port: other.port, allowed: false };
  const loaded = sessions(world.folders.home);
  const root = loaded.find((session) => session.header.parentSession === null);
  const child = loaded.find((session) => session.header.parentSession !== null);
  const requestsOf = (events: ReadonlyArray<{ type: string; data: unknown }>) =>
    events
      .filter((event) => event.type === 'sandbox/network')
      .map((event) => event.data as SandboxNetworkRequest);
  const rootRequests = requestsOf(root?.events ?? []);
  assert.deepEqual(rootRequests, [
    { ...allowed, method: 'GET' },
    { ...allowed, method: 'CONNECT' },
    { ...refused, method: 'GET' },
    { ...refused, method: 'CONNECT' },
    // The background job's.
    { ...allowed, method: 'GET' },
  ]);
  assert.deepEqual(requestsOf(child?.events ?? []), [{ ...allowed, method: 'GET' }]);
  // `--json` shows the root's events as they are logged.
  assert.deepEqual(requestsOf(ndjsonLines(run.stdout)), rootRequests);
  // The proxy's private folder (in Loom's TMPDIR) went with Loom.
  assert.deepEqual(
    readdirSync(tmp).filter((name) => name.startsWith('loom-proxy-')),
    [],
  );
});

test('a malformed allowedHosts entry stops the start, naming it and how to write one', async () => {
  const world = sandboxWorld('sandbox:\n  allowedHosts: ["a*b.example.com"]\n');
  const run = await runCalls(world, [bashCall('echo ran')]);
  assert.notEqual(run.code, 0);
  assert.match(
    run.stderr,
    /sandbox\.allowedHosts: "a\*b\.example\.com" is not a host pattern .*write host, host:port/,
  );
  assert.equal(run.contents.length, 0);
});
