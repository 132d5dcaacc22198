/**
 * MCP resources and prompts through bin/loom with the scripted model and the everything server
 * over stdio: `read_mcp_resource` reads a text resource, describes a blob, and names the servers
 * and URIs when the server or URI is unknown; `loom mcp list` shows resources, templates and
 * prompts; `/mcp__SERVER__PROMPT args` runs a prompt as the turn's user message.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { runLoom, runScripted, scriptedFolders, writeScriptedModel } from '../cli/loom-process.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { EVERYTHING_SERVER } from './mcp-fixtures.js';

interface JsonEvent {
  sessionId: string;
  type: string;
  data: Record<string, unknown>;
}

function events(stdout: string): JsonEvent[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as JsonEvent);
}

function everythingFolders(model: unknown) {
  const folders = scriptedFolders(model);
  const node = JSON.stringify(process.execPath);
  writeFileSync(
    join(folders.home, 'config.yaml'),
    [
      'mcp:',
      '  servers:',
      `    every: { command: ${node}, args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio] }`,
      '',
    ].join('\n'),
  );
  return folders;
}

test('read_mcp_resource: a text resource as text, a blob described, unknown server and URI errors that say what there is', async () => {
  const folders = everythingFolders({ rules: [] });
  const read = (server: string, uri: string) => ({
    name: 'read_mcp_resource',
    arguments: { server, uri },
  });
  writeScriptedModel(folders.home, {
    rules: [
      callsThenReply(
        'read them',
        [
          read('every', 'demo://resource/dynamic/text/1'),
          read('every', 'demo://resource/dynamic/blob/2'),
          read('nobody', 'demo://resource/dynamic/text/1'),
          read('every', 'demo://nothing/here'),
        ],
        'read',
      ),
    ],
  });
  const run = await runScripted(folders, 'read them', { json: true });
  assert.equal(run.code, 0, run.stderr);
  const all = events(run.stdout);
  const file = join(folders.home, 'sessions', `${all[0]?.sessionId}.jsonl`);
  assert.deepEqual(checkSessionInvariants(loadSessionFile(file).events), []);
  const results = all.filter((event) => event.type === 'tool/result').map((event) => event.data);
  assert.equal(results.length, 4);
  const [text, blob, noServer, noUri] = results;
  assert.equal(text?.isError, false);
  assert.match(
    String(text?.content),
    /^\[resource demo:\/\/resource\/dynamic\/text\/1: text\/plain, \d+ bytes\]\nResource 1: This is a plaintext resource/,
  );
  assert.equal(blob?.isError, false);
  assert.match(
    String(blob?.content),
    /^\[resource demo:\/\/resource\/dynamic\/blob\/2: text\/plain, \d+ bytes\]$/,
  );
  assert.equal(noServer?.isError, true);
  assert.match(
    String(noServer?.content),
    /no connected MCP server is named nobody; MCP servers with resources: every \(`loom mcp list` shows their resources\)/,
  );
  assert.equal(noUri?.isError, true);
  assert.match(
    String(noUri?.content),
    /MCP server every answered resources\/read with: .*Resource demo:\/\/nothing\/here not found; every lists demo:\/\/resource\/static\/document\/\S+, .*demo:\/\/resource\/dynamic\/text\/\{resourceId\} \(template\)/,
  );
});

test('loom mcp list: resources (counted, the first few by URI), templates and prompts with their arguments', async () => {
  const folders = everythingFolders({ rules: [] });
  const [listed, table] = await Promise.all([
    runLoom(['mcp', 'list', '--json', '--cwd', folders.workspace], { home: folders.home }),
    runLoom(['mcp', 'list', '--cwd', folders.workspace], { home: folders.home }),
  ]);
  assert.equal(listed.code, 0, listed.stderr);
  const report = JSON.parse(listed.stdout.trim()) as {
    resources: Array<{ uri: string }>;
    resourceTemplates: Array<{ uriTemplate: string; name: string }>;
    prompts: Array<{ name: string; arguments: Array<{ name: string; required?: true }> }>;
  };
  assert.ok(
    report.resources.some((resource) => resource.uri.startsWith('demo://resource/static/')),
  );
  assert.deepEqual(
    report.resourceTemplates.map((template) => template.uriTemplate),
    ['demo://resource/dynamic/text/{resourceId}', 'demo://resource/dynamic/blob/{resourceId}'],
  );
  const args = report.prompts.find((prompt) => prompt.name === 'args-prompt');
  assert.deepEqual(
    args?.arguments.map((argument) => [argument.name, argument.required]),
    [
      ['city', true],
      ['state', undefined],
    ],
  );
  assert.equal(table.code, 0, table.stderr);
  assert.match(
    table.stdout,
    new RegExp(
      `^resources:\\n {2}every: ${report.resources.length} resources: demo://resource/static/document/\\S+, `,
      'm',
    ),
  );
  assert.match(
    table.stdout,
    /^ {2}every: template demo:\/\/resource\/dynamic\/text\/\{resourceId\} \(Dynamic Text Resource\)$/m,
  );
  assert.match(table.stdout, /^prompts:\n(?: {2}\/mcp__every__\S+.*\n)+/m);
  assert.match(table.stdout, /^ {2}\/mcp__every__args-prompt city \[state\]$/m);
  assert.match(table.stdout, /^ {2}\/mcp__every__simple-prompt$/m);
});
