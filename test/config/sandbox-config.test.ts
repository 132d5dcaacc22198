/**
 * Config `sandbox:` and the permission rule's `sandbox: false`: good values parse (with the
 * project's file winning key by key), bad ones fail naming the key and what it takes.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig, parseConfig } from '../../src/config/load-config.js';
import { declaredServers } from '../../src/mcp/server-list.js';
import { sandboxSettings } from '../../src/sandbox/install.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('sandbox: every key parses, and absent keys take their defaults', () => {
  const config = parseConfig(
    [
      'sandbox:',
      '  mode: read-only',
      '  network: true',
      '  allowedHosts: [registry.npmjs.org, 127.0.0.1:8080, "[::1]:9000", "localhost:*"]',
      '  writable: [~/.npm, build]',
      '  hidden: [.env]',
      'permissions:',
      '  - { tool: bash, match: { command: "docker *" }, action: allow, sandbox: false }',
      'mcp:',
      '  servers:',
      '    files: { command: node, args: [server.js], sandbox: true }',
    ].join('\n'),
    'c.yaml',
  );
  assert.deepEqual(config.sandbox, {
    mode: 'read-only',
    network: true,
    allowedHosts: ['registry.npmjs.org', '127.0.0.1:8080', '[::1]:9000', 'localhost:*'],
    writable: ['~/.npm', 'build'],
    hidden: ['.env'],
  });
  assert.equal(config.permissions?.[0]?.sandbox, false);
  assert.equal((config.mcp?.servers?.files as { sandbox?: boolean } | undefined)?.sandbox, true);
  assert.deepEqual(sandboxSettings(undefined), {
    mode: 'workspace-write',
    network: false,
    allowedHosts: [],
    writable: [],
    hidden: [],
  });
});

test('bad sandbox values fail naming the key and what it takes', () => {
  const text = [
    'sandbox:',
    '  mode: strict',
    '  network: "yes"',
    '  allowedHosts: ["http://example.com/"]',
    '  writable: [""]',
    '  colour: red',
    'permissions:',
    '  - { tool: bash, action: deny, sandbox: false }',
    '  - { tool: bash, action: allow, sandbox: true }',
    'mcp:',
    '  servers:',
    '    web: { url: "http://127.0.0.1:1/mcp", sandbox: true }',
  ].join('\n');
  assert.throws(
    () => parseConfig(text, 'c.yaml'),
    (error: Error) => {
      assert.match(
        error.message,
        /c\.yaml:2: sandbox\.mode: must be workspace-write, read-only or off/,
      );
      assert.match(error.message, /c\.yaml:3: sandbox\.network: must be true or false/);
      assert.match(error.message, /sandbox\.allowedHosts\.0: must be a host name or host:port/);
      assert.match(error.message, /sandbox\.writable\.0: must be a path/);
      assert.match(error.message, /sandbox\.colour: unknown field/);
      assert.match(
        error.message,
        /permissions\.0\.sandbox: sandbox: false goes only with action: allow/,
      );
      assert.match(error.message, /permissions\.1\.sandbox: takes only false/);
      assert.doesNotMatch(error.message, /mcp\.servers/, 'a server entry is its own problem');
      return true;
    },
  );
  const mcpOnly = `mcp:${text.split('mcp:')[1]}`;
  const [web] = declaredServers(parseConfig(mcpOnly, 'c.yaml'), temporaryFolder());
  assert.equal(web?.transport, 'invalid');
  assert.match(
    web?.transport === 'invalid' ? web.problem : '',
    /^config: mcp\.servers\.web\.sandbox: sandbox is for stdio servers only$/,
  );
});

test("the project's sandbox keys win over the home config's, key by key", () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  writeFileSync(join(home, 'config.yaml'), 'sandbox:\n  network: true\n  writable: [~/.npm]\n');
  mkdirSync(join(workspace, '.loom'));
  writeFileSync(join(workspace, '.loom/config.yaml'), 'sandbox:\n  mode: read-only\n');
  assert.deepEqual(loadConfig(home, workspace).sandbox, {
    network: true,
    writable: ['~/.npm'],
    mode: 'read-only',
  });
});
