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
import { ndjsonLines } from '../helpers/session-files.js';
import { EVERYTHING_SERVER } from './mcp-fixtures.js';

interface JsonEvent {
  sessionId: string;
  type: string;
  data: Record<string, unknown>;
}

const events = (stdout: string) => ndjsonLines<JsonEvent>(stdout);

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

/** The user messages and `mcp/prompt-run` events of the session `run` wrote. */
function sessionOf(home: string, stdout: string) {
  const all = events(stdout);
  const file = join(home, 'sessions', `${all[0]?.sessionId}.jsonl`);
  const logged = loadSessionFile(file).events;
  assert.deepEqual(checkSessionInvariants(logged), []);
  return {
    messages: logged
      .filter((event) => event.type === 'user/message')
      .map((event) => (event.data as { text: string }).text),
    runs: logged.filter((event) => event.type === 'mcp/prompt-run').map((event) => event.data),
  };
}

test('loom run "/mcp__every__args-prompt …": the prompt\'s messages are the user message; arguments positional or NAME=VALUE', async () => {
  const folders = everythingFolders({ default: { reply: 'ok: {{prompt}}' } });
  const [positional, named, embedded] = await Promise.all([
    runScripted(folders, '/mcp__every__args-prompt "New York" state=NY', { json: true }),
    runScripted(folders, '/mcp__every__args-prompt city=Chicago', { json: true }),
    runScripted(folders, '/mcp__every__resource-prompt Text 1', { json: true }),
  ]);
  assert.equal(positional.code, 0, positional.stderr);
  const first = sessionOf(folders.home, positional.stdout);
  assert.deepEqual(first.runs, [
    { server: 'every', prompt: 'args-prompt', arguments: { city: 'New York', state: 'NY' } },
  ]);
  assert.match(JSON.stringify(first.messages), /What's weather in New York, NY\?/);
  assert.equal(named.code, 0, named.stderr);
  assert.match(
    JSON.stringify(sessionOf(folders.home, named.stdout).messages),
    /What's weather in Chicago\?/,
  );
  assert.equal(embedded.code, 0, embedded.stderr);
  assert.match(
    JSON.stringify(sessionOf(folders.home, embedded.stdout).messages),
    /Please analyze the following resource:\\n\\n\[resource demo:\/\/resource\/dynamic\/text\/1: text\/plain, \d+ bytes\]\\nResource 1: This is a plaintext resource/,
  );
});

test('loom run "/mcp__every__args-prompt" without its required argument fails naming it; an unknown prompt names the prompts', async () => {
  const folders = everythingFolders({ default: { reply: 'ok' } });
  const [missing, unknown] = await Promise.all([
    runScripted(folders, '/mcp__every__args-prompt state=NY'),
    runScripted(folders, '/mcp__every__no-such-prompt'),
  ]);
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /\/mcp__every__args-prompt needs city: \/mcp__every__args-prompt city \[state\] \(positional in that order, or NAME=VALUE\)/,
  );
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /MCP server every has no prompt no-such-prompt; its prompts: .*args-prompt/,
  );
});

test('loom run "… @every:URI …" attaches the resource; a mention of no connected server is left as it is', async () => {
  const folders = everythingFolders({ default: { reply: 'ok' } });
  const run = await runScripted(
    folders,
    'compare @every:demo://resource/dynamic/text/4 with @nobody:demo://x',
    { json: true },
  );
  assert.equal(run.code, 0, run.stderr);
  const { messages } = sessionOf(folders.home, run.stdout);
  assert.equal(messages.length, 1);
  assert.match(
    String(messages[0]),
    /^compare @every:demo:\/\/resource\/dynamic\/text\/4 with @nobody:demo:\/\/x\n\nAttached resource demo:\/\/resource\/dynamic\/text\/4 \(MCP server every\):\n\[resource demo:\/\/resource\/dynamic\/text\/4: text\/plain, \d+ bytes\]\nResource 4: This is a plaintext resource/,
  );
  assert.doesNotMatch(String(messages[0]), /Attached resource demo:\/\/x/);
});
