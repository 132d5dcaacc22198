/**
 * The bubblewrap arguments a sandbox plan becomes: their order (read-only root, private /tmp,
 * hidden holders of a bind before it, binds, then the rest hidden), the namespaces and
 * capabilities every command gets, and the network seam's three modes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bwrapArguments } from '../../src/sandbox/bwrap-arguments.js';
import type { SandboxPlan } from '../../src/sandbox/contract.js';
import { networkSetup } from '../../src/sandbox/sandbox-network.js';

const plan: SandboxPlan = {
  cwd: '/work/app',
  binds: [
    { path: '/work/app', writable: true },
    { path: '/home/me/.npm', writable: true },
    { path: '/work/app/.claude', writable: false },
  ],
  hiddenFolders: [
    '/home/me/.ssh',
    '/srv/loom-home',
    '/work',
    '/tmp/elsewhere',
    '/work/app/secrets',
  ],
  hiddenFiles: ['/home/me/.netrc'],
  network: { kind: 'none' },
};

/** The index of the first `flag` followed by `value`. */
function indexOf(args: string[], flag: string, value: string): number {
  const index = args.findIndex((arg, position) => arg === flag && args[position + 1] === value);
  assert.ok(index >= 0, `${flag} ${value} is missing from ${args.join(' ')}`);
  return index;
}

test('every command dies with Loom, gets its own pid, ipc and network namespaces, and no capabilities', () => {
  const { args } = bwrapArguments(plan);
  for (const flag of ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-net']) {
    assert.ok(args.includes(flag), `${flag} is missing`);
  }
  indexOf(args, '--cap-drop', 'ALL');
  assert.ok(!args.includes('--new-session'));
  assert.deepEqual(args.slice(-2), ['--chdir', '/work/app']);
});

test('the file system is read-only but for the binds, with fresh /dev and /proc and a private /tmp', () => {
  const { args } = bwrapArguments(plan);
  const root = args.findIndex(
    (arg, i) => arg === '--ro-bind' && args[i + 1] === '/' && args[i + 2] === '/',
  );
  assert.ok(root >= 0);
  assert.ok(indexOf(args, '--dev', '/dev') > root);
  assert.ok(indexOf(args, '--proc', '/proc') > root);
  const tmp = indexOf(args, '--tmpfs', '/tmp');
  const workspace = indexOf(args, '--bind', '/work/app');
  assert.ok(tmp < workspace, 'a workspace under /tmp must be bound after the private /tmp');
  assert.ok(indexOf(args, '--bind', '/home/me/.npm') > workspace);
  assert.ok(indexOf(args, '--ro-bind', '/work/app/.claude') > workspace);
});

test('a hidden folder holding a bind comes before it, the others after every bind, all remounted read-only', () => {
  const { args } = bwrapArguments(plan);
  const lastBind = indexOf(args, '--ro-bind', '/work/app/.claude');
  assert.ok(indexOf(args, '--tmpfs', '/work') < indexOf(args, '--bind', '/work/app'));
  for (const folder of ['/home/me/.ssh', '/srv/loom-home', '/work/app/secrets']) {
    assert.ok(indexOf(args, '--tmpfs', folder) > lastBind, `${folder} is hidden too early`);
    assert.ok(indexOf(args, '--remount-ro', folder) > indexOf(args, '--tmpfs', folder));
  }
  assert.ok(indexOf(args, '--ro-bind', '/dev/null') > lastBind);
  assert.equal(args[indexOf(args, '--ro-bind', '/dev/null') + 2], '/home/me/.netrc');
  // Under the private /tmp there is nothing to hide.
  assert.ok(!args.includes('/tmp/elsewhere'));
});

test('read-only mode binds the workspace read-only', () => {
  const { args } = bwrapArguments({
    ...plan,
    binds: [{ path: '/work/app', writable: false }],
  });
  indexOf(args, '--ro-bind', '/work/app');
  assert.ok(!args.includes('--bind'));
});

test('the network seam: none unshares, open shares, proxy binds the socket and sets the proxy variables', () => {
  assert.deepEqual(networkSetup({ kind: 'none' }), {
    args: ['--unshare-net'],
    env: {},
    prefix: [],
  });
  assert.deepEqual(networkSetup({ kind: 'open' }), { args: [], env: {}, prefix: [] });
  const proxy = networkSetup(
    { kind: 'proxy', socketPath: '/run/p.sock', port: 3128 },
    { node: '/opt/node', script: '/opt/bridge.mjs' },
  );
  assert.deepEqual(proxy.args, [
    '--unshare-net',
    '--ro-bind',
    '/run/p.sock',
    '/tmp/.loom-proxy/proxy.sock',
    '--ro-bind',
    '/opt/bridge.mjs',
    '/tmp/.loom-proxy/bridge.mjs',
  ]);
  assert.equal(proxy.env.HTTPS_PROXY, 'http://127.0.0.1:3128');
  assert.equal(proxy.env.http_proxy, 'http://127.0.0.1:3128');
  // Empty, so loopback names go through the proxy too (inside, loopback is the sandbox's own).
  assert.equal(proxy.env.NO_PROXY, '');
  assert.equal(proxy.env.no_proxy, '');
  // The bridge's start, then `exec` of what follows (`SHELL -c COMMAND`, or an MCP server).
  assert.equal(proxy.prefix[0], '/bin/sh');
  assert.match(
    proxy.prefix[2] ?? '',
    /^__loom_proxy=\$\('\/opt\/node' '\/tmp\/\.loom-proxy\/bridge\.mjs' .* 3128 "\$\$"/,
  );
  assert.match(proxy.prefix[2] ?? '', /exec "\$@"$/);
  assert.throws(
    () => networkSetup({ kind: 'proxy', socketPath: '/run/p.sock', port: 0 }),
    /port must be 1 to 65535, not 0/,
  );
  const { args } = bwrapArguments({ ...plan, network: { kind: 'open' } });
  assert.ok(!args.includes('--unshare-net'));
  const proxied = bwrapArguments({
    ...plan,
    network: { kind: 'proxy', socketPath: '/run/p.sock', port: 3128 },
  }).args;
  // The socket's bind comes after the file system's, or the root bind would cover it.
  assert.ok(indexOf(proxied, '--ro-bind', '/run/p.sock') > indexOf(proxied, '--tmpfs', '/tmp'));
});
