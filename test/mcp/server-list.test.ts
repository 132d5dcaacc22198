import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseConfig } from '../../src/config/load-config.js';
import { declarationVariables, expandVariables } from '../../src/mcp/expand-variables.js';
import { declaredServers, readProjectServers } from '../../src/mcp/server-list.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

/** `${NAME}`, the reference syntax of server declarations. */
function ref(name: string): string {
  return `\${${name}}`;
}

test('servers come from config and .mcp.json; a name in both is config’s', () => {
  const workspace = temporaryFolder();
  writeFileSync(
    join(workspace, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        docs: {
          type: 'http',
          url: 'https://example.test/mcp',
          headers: { 'X-Key': ref('DOCS_KEY') },
        },
        files: { command: 'ignored-because-config-has-it' },
      },
    }),
  );
  const config = parseConfig(
    [
      'mcp:',
      '  startTimeoutMs: 5000',
      '  servers:',
      `    files: { command: files-server, args: ["--root", "${ref('HOME')}"], cwd: sub, startTimeoutMs: 900 }`,
    ].join('\n'),
    '/home/config.yaml',
  );
  const servers = declaredServers(config, workspace);
  assert.deepEqual(servers, [
    {
      name: 'files',
      source: 'config',
      origin: 'config',
      startTimeoutMs: 900,
      transport: 'stdio',
      command: 'files-server',
      args: ['--root', ref('HOME')],
      env: {},
      cwd: 'sub',
      workspace,
    },
    {
      name: 'docs',
      source: 'project',
      origin: join(workspace, '.mcp.json'),
      startTimeoutMs: 5000,
      transport: 'http',
      url: 'https://example.test/mcp',
      headers: { 'X-Key': ref('DOCS_KEY') },
    },
  ]);
  assert.deepEqual(servers.map(declarationVariables), [['HOME'], ['DOCS_KEY']]);
  const expanded = expandVariables(servers[1] as (typeof servers)[number], {
    DOCS_KEY: 'key-42-value',
  });
  assert.deepEqual(expanded.missing, []);
  assert.deepEqual(expanded.secrets, ['key-42-value']);
  assert.equal(
    expanded.value.transport === 'http' && expanded.value.headers['X-Key'],
    'key-42-value',
  );
  const missing = expandVariables(servers[1] as (typeof servers)[number], {});
  assert.deepEqual(missing.missing, ['DOCS_KEY']);
});

test('a reference with a default (NAME:-default) falls back; no .mcp.json is no servers', () => {
  const workspace = temporaryFolder();
  assert.deepEqual(readProjectServers(workspace), {});
  const [server] = declaredServers(
    parseConfig(
      `mcp:\n  servers:\n    a: { command: "${ref('MCP_BIN:-node')}", env: { LEVEL: "${ref('LEVEL:-3')}" } }\n`,
      'c.yaml',
    ),
    workspace,
  );
  assert.ok(server);
  const { value, missing } = expandVariables(server, {});
  assert.deepEqual(missing, []);
  assert.ok(value.transport === 'stdio');
  assert.equal(value.command, 'node');
  assert.deepEqual(value.env, { LEVEL: '3' });
});

test('a literal header value, a bad server name or a server with both command and url is refused, naming the field', () => {
  assert.throws(
    () =>
      parseConfig(
        'mcp:\n  servers:\n    gh: { url: "https://x.test", headers: { Authorization: "Bearer abc" } }\n',
        '/c.yaml',
      ),
    /\/c\.yaml:3: mcp\.servers\.gh\.headers\.Authorization: must name an environment variable as \$\{NAME\}/,
  );
  assert.throws(
    () => parseConfig('mcp:\n  servers:\n    a__b: { command: x }\n', '/c.yaml'),
    /mcp\.servers\.a__b: server names are letters/,
  );
  assert.throws(
    () =>
      parseConfig('mcp:\n  servers:\n    a: { command: x, url: "https://x.test" }\n', '/c.yaml'),
    /mcp\.servers\.a: a server needs either `command` \(stdio\) or `url`/,
  );
  assert.throws(
    () =>
      parseConfig(
        'mcp:\n  servers:\n    a: { url: "https://x.test", env: { A: "1" } }\n',
        '/c.yaml',
      ),
    /mcp\.servers\.a\.env: env is for stdio servers only/,
  );
  const workspace = temporaryFolder();
  writeFileSync(
    join(workspace, '.mcp.json'),
    '{"mcpServers": {"s": {"type": "sse", "url": "https://x.test"}}}',
  );
  assert.throws(
    () => readProjectServers(workspace),
    (error: Error & { code?: string }) =>
      error.code === 'INVALID_CONFIG' &&
      error.message.includes(`${join(workspace, '.mcp.json')}: mcpServers.s.type`),
  );
  writeFileSync(join(workspace, '.mcp.json'), '{ not json');
  assert.throws(() => readProjectServers(workspace), /\.mcp\.json: not valid JSON/);
});
