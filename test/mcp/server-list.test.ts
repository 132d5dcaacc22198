import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { parseConfig } from '../../src/config/load-config.js';
import { declarationVariables, expandVariables } from '../../src/mcp/expand-variables.js';
import {
  clientSettings,
  declaredServers,
  folderRoot,
  readProjectServers,
} from '../../src/mcp/server-list.js';
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

test('an entry Loom cannot use (literal header, bad name, command and url, unknown type) fails that server alone, naming the file and field', () => {
  const workspace = temporaryFolder();
  const config = parseConfig(
    [
      'mcp:',
      '  servers:',
      '    gh: { url: "https://x.test", headers: { Authorization: "Bearer abc" } }',
      '    a__b: { command: x }',
      '    both: { command: x, url: "https://x.test" }',
      '    misplaced: { url: "https://x.test", env: { A: "1" } }',
      '    fine: { command: x }',
      '',
    ].join('\n'),
    '/c.yaml',
  );
  writeFileSync(
    join(workspace, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        old: { type: 'sse', url: 'https://x.test/sse' },
        ws: { type: 'websocket', url: 'wss://x.test' },
        extra: { command: 'y', colour: 'red' },
      },
    }),
  );
  const servers = declaredServers(config, workspace);
  const problems = Object.fromEntries(
    servers.map((server) => [
      server.name,
      server.transport === 'invalid' ? server.problem : server.transport,
    ]),
  );
  const file = join(workspace, '.mcp.json');
  assert.match(
    String(problems.gh),
    /^config: mcp\.servers\.gh\.headers\.Authorization: must name an environment variable as \$\{NAME\}/,
  );
  assert.ok(!String(problems.gh).includes('abc'), 'the literal value is not repeated');
  assert.match(String(problems.a__b), /^config: mcp\.servers\.a__b: server names are letters/);
  assert.match(
    String(problems.both),
    /^config: mcp\.servers\.both: a server needs either `command` \(stdio\) or `url`/,
  );
  assert.match(
    String(problems.misplaced),
    /mcp\.servers\.misplaced\.env: env is for stdio servers only/,
  );
  assert.equal(problems.fine, 'stdio');
  assert.equal(problems.old, 'sse');
  assert.equal(
    problems.ws,
    `${file}: mcpServers.ws.type: unknown transport "websocket"; Loom speaks stdio, http, sse`,
  );
  assert.equal(problems.extra, `${file}: mcpServers.extra.colour: unknown field colour`);
  // The file itself must still be JSON of the shared shape.
  writeFileSync(join(workspace, '.mcp.json'), '{"servers": {}}');
  assert.throws(
    () => readProjectServers(workspace),
    (error: Error & { code?: string }) =>
      error.code === 'INVALID_CONFIG' && error.message.includes(`${file}: mcpServers:`),
  );
  writeFileSync(join(workspace, '.mcp.json'), '{ not json');
  assert.throws(() => readProjectServers(workspace), /\.mcp\.json: not valid JSON/);
});

test('roots: the workspace first, then mcp.roots (relative to the workspace), each once', () => {
  const workspace = temporaryFolder();
  const config = parseConfig(
    `mcp:\n  roots: [docs, /srv/shared, "${workspace}"]\n  callTimeoutMs: 5000\n`,
    '/c.yaml',
  );
  assert.deepEqual(clientSettings(config, workspace), {
    roots: [
      folderRoot(workspace),
      { uri: pathToFileURL(join(workspace, 'docs')).href, name: 'docs' },
      { uri: 'file:///srv/shared', name: 'shared' },
    ],
    callTimeoutMs: 5000,
    maxCallMs: 600_000,
  });
  assert.deepEqual(clientSettings(parseConfig('', '/c.yaml'), workspace), {
    roots: [folderRoot(workspace)],
    callTimeoutMs: 60_000,
    maxCallMs: 600_000,
  });
});

test('sampling: allow, ask or deny on either transport, in config and .mcp.json; anything else fails that server alone', () => {
  const workspace = temporaryFolder();
  writeFileSync(
    join(workspace, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        web: { type: 'http', url: 'https://x.test/mcp', sampling: 'deny' },
        odd: { command: 'y', sampling: 'sometimes' },
      },
    }),
  );
  const config = parseConfig(
    'mcp:\n  servers:\n    local: { command: x, sampling: allow }\n    plain: { command: x }\n',
    '/c.yaml',
  );
  const servers = Object.fromEntries(
    declaredServers(config, workspace).map((server) => [server.name, server]),
  );
  const sampling = (name: string) => (servers[name] as { sampling?: string }).sampling;
  assert.equal(sampling('local'), 'allow');
  assert.equal(sampling('plain'), undefined, 'absent: the default, ask');
  assert.equal(sampling('web'), 'deny');
  const odd = servers.odd;
  assert.equal(odd?.transport, 'invalid');
  assert.equal(
    odd?.transport === 'invalid' ? odd.problem : '',
    `${join(workspace, '.mcp.json')}: mcpServers.odd.sampling: sampling takes allow, ask or deny (got "sometimes")`,
  );
});
