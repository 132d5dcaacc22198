/** The line a failed sandboxed command's result gets, by what its output shows. */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { blockedNote } from '../../src/sandbox/blocked-note.js';
import { protectedPath } from '../../src/sandbox/permission-gate.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('each kind of block names the key that allows it', () => {
  assert.match(
    blockedNote("touch: cannot touch '/usr/x': Read-only file system", {
      hidden: [],
      ownNetwork: true,
    }) ?? '',
    /sandbox\.writable.*outside_sandbox/,
  );
  assert.match(
    blockedNote('bash: line 1: .claude/settings.json: Read-only file system', {
      hidden: [],
      ownNetwork: true,
    }) ?? '',
    /\.claude stays read-only.*write_file or edit_file/,
  );
  assert.match(
    blockedNote('curl: (6) Could not resolve host: example.com', {
      hidden: [],
      ownNetwork: true,
    }) ?? '',
    /sandbox\.network: true \(or list the host in sandbox\.allowedHosts\), or retry with outside_sandbox: true/,
  );
  assert.match(
    blockedNote('connect ENETUNREACH 10.0.0.1:80', { hidden: [], ownNetwork: true }) ?? '',
    /sandbox\.network/,
  );
  assert.match(
    blockedNote('cat: /h/.ssh/id: No such file or directory', {
      hidden: ['/h/.ssh'],
      ownNetwork: true,
    }) ?? '',
    /\/h\/\.ssh is hidden.*sandbox\.hidden/,
  );
  assert.equal(
    blockedNote('cat: nothing: No such file or directory', {
      hidden: ['/h/.ssh'],
      ownNetwork: true,
    }),
    undefined,
  );
  assert.equal(blockedNote('make: *** [all] Error 2', { hidden: [], ownNetwork: true }), undefined);
  assert.match(
    blockedNote('connect ECONNREFUSED 127.0.0.1:8080', { hidden: [], ownNetwork: true }) ?? '',
    /network of its own.*loopback too/,
  );
  assert.equal(
    blockedNote('connect ECONNREFUSED 127.0.0.1:8080', { hidden: [], ownNetwork: false }),
    undefined,
  );
});

test('through the proxy: a refused host is named with sandbox.allowedHosts; a direct connection or a program ignoring the proxy is told of it', () => {
  const proxied = { hidden: [], ownNetwork: true, proxied: true };
  assert.match(
    blockedNote(
      'loom: the sandbox does not allow network access to 127.0.0.1:9. To allow it, add "127.0.0.1:9" to sandbox.allowedHosts in Loom\'s config.',
      proxied,
    ) ?? '',
    /^\[sandbox: Loom's proxy refused 127\.0\.0\.1:9: it is not in sandbox\.allowedHosts; add it there/,
  );
  assert.match(
    blockedNote('curl: (56) CONNECT tunnel failed, response 403', proxied) ?? '',
    /Loom's proxy refused the host: it is not in sandbox\.allowedHosts/,
  );
  assert.match(
    blockedNote('curl: (7) Failed to connect to 127.0.0.1 port 8080', proxied) ?? '',
    /loopback too, are out of reach directly; only the hosts of sandbox\.allowedHosts are reachable, through Loom's proxy \(HTTP_PROXY and HTTPS_PROXY\)/,
  );
  assert.match(
    blockedNote('getaddrinfo ENOTFOUND example.com', proxied) ?? '',
    /the network was blocked.*only the hosts of sandbox\.allowedHosts are reachable/,
  );
  // Without the proxy a 403 is the server's own answer.
  assert.equal(
    blockedNote('curl: (56) CONNECT tunnel failed, response 403', { hidden: [], ownNetwork: true }),
    undefined,
  );
});

test('the file tools ask for protected paths, as written and through links', () => {
  const workspace = temporaryFolder();
  mkdirSync(join(workspace, '.git/hooks'), { recursive: true });
  assert.equal(protectedPath(workspace, '.claude/settings.json'), '.claude/settings.json');
  assert.equal(protectedPath(workspace, join(workspace, '.loom/config.yaml')), '.loom/config.yaml');
  assert.equal(protectedPath(workspace, '.git/hooks/pre-commit'), '.git/hooks/pre-commit');
  assert.equal(protectedPath(workspace, '.git/config'), '.git/config');
  assert.equal(protectedPath(workspace, '.mcp.json'), '.mcp.json');
  assert.equal(protectedPath(workspace, '.git/info/exclude'), undefined);
  assert.equal(protectedPath(workspace, 'src/.claude.ts'), undefined);
  assert.equal(protectedPath(workspace, '.claudette'), undefined);
  symlinkSync(join(workspace, '.claude'), join(workspace, 'innocent'));
  assert.equal(protectedPath(workspace, 'innocent/settings.json'), '.claude/settings.json');
});
