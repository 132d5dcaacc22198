/**
 * One server connection against the everything server, in process: roots changed mid-session
 * reach the server (`notifications/roots/list_changed`, then its `roots/list`), and closing a
 * streamable HTTP session sends its DELETE. A task-required tool of a server that runs no tasks
 * is left out, saying why.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_MAX_CALL_MS } from '../../src/mcp/contract.js';
import { ServerConnection } from '../../src/mcp/server-connection.js';
import { folderRoot } from '../../src/mcp/server-list.js';
import { serverTools } from '../../src/mcp/server-tools.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { EVERYTHING_SERVER, type HttpServer, startEverythingServer } from './mcp-fixtures.js';

const settings = (folder: string) => ({
  roots: [folderRoot(folder)],
  callTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
  maxCallMs: DEFAULT_MAX_CALL_MS,
});

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((block) => block.text ?? '').join('');
}

let http: HttpServer;
before(async () => {
  http = await startEverythingServer('streamableHttp');
});
after(() => http.stop());

test('roots that change reach the server: list_changed, then its roots/list', {
  timeout: 20_000,
}, async () => {
  const workspace = temporaryFolder();
  const other = temporaryFolder();
  const connection = new ServerConnection(
    {
      transport: 'stdio',
      name: 'every',
      source: 'config',
      origin: 'config',
      command: process.execPath,
      args: [EVERYTHING_SERVER, 'stdio'],
      env: {},
      workspace,
      startTimeoutMs: 30_000,
    },
    process.env,
    settings(workspace),
  );
  try {
    await connection.start();
    const signal = new AbortController().signal;
    const first = textOf(await connection.call('get-roots-list', {}, { signal }));
    assert.match(first, new RegExp(`URI: ${folderRoot(workspace).uri}\\n`));
    await connection.updateRoots([folderRoot(workspace), folderRoot(other)]);
    // The server fetches them again when told; its next answer has both.
    let text = first;
    while (!text.includes(folderRoot(other).uri)) {
      text = textOf(await connection.call('get-roots-list', {}, { signal }));
    }
    assert.match(text, /^Current MCP Roots \(2 total\)/);
  } finally {
    await connection.close();
  }
});

test('closing a streamable HTTP session sends its DELETE', { timeout: 20_000 }, async () => {
  const connection = new ServerConnection(
    {
      transport: 'http',
      name: 'web',
      source: 'config',
      origin: 'config',
      url: http.url,
      headers: {},
      startTimeoutMs: 30_000,
    },
    process.env,
    settings(temporaryFolder()),
  );
  const { tools } = await connection.start();
  assert.ok(tools.some((tool) => tool.name === 'echo'));
  await connection.close();
  await http.waitForOutput?.(/Received session termination request for session/);
});

test('a task-required tool of a server that runs no tasks is left out, saying why', () => {
  const connection = { name: 'plain', runsTasks: false } as unknown as ServerConnection;
  const { tools, reports } = serverTools(
    connection,
    [
      {
        name: 'research',
        inputSchema: { type: 'object' },
        execution: { taskSupport: 'required' },
      },
      { name: 'maybe', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } },
    ],
    { outputLimit: 1000, maxCallMs: 5000 },
  );
  assert.deepEqual(
    tools.map((tool) => [tool.name, tool.timeoutMs]),
    [['mcp__plain__maybe', 5000]],
  );
  assert.deepEqual(reports, [
    {
      name: 'research',
      problem:
        'it must run as a task (execution.taskSupport: "required"), but the server does not declare tasks for tools/call (capabilities.tasks.requests.tools.call)',
    },
    { name: 'maybe', agentName: 'mcp__plain__maybe' },
  ]);
});
