/**
 * Issue 13's ACP acceptance for MCP: `loom acp` driven by the ACP SDK's client connects the MCP
 * servers the client sends in `session/new` (a stdio one and a streamable-HTTP one, both written
 * with the MCP SDK, and the everything server over HTTP+SSE), and the model calls their tools; a server the client sends that cannot
 * start is reported and the session still works; config's servers are there too and win a name
 * both use. The servers end with the session.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { withLoomAcp } from '../cli/loom-acp.js';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, isToolResult, promptFor } from '../helpers/acp-client.js';
import { isAlive } from '../helpers/process-state.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import {
  type HttpServer,
  STDIO_SERVER,
  startEverythingServer,
  startedPids,
  startHttpServer,
  stdioServerYaml,
} from './mcp-fixtures.js';

let http: HttpServer;
let sse: HttpServer;
before(async () => {
  [http, sse] = await Promise.all([
    startHttpServer('acp-client-token-2718'),
    startEverythingServer('sse'),
  ]);
});
after(() => Promise.all([http.stop(), sse.stop()]));

test('loom acp: the MCP servers a client sends in session/new give the model their tools', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const pidFile = join(home, 'editor.pids');
  const configPids = join(home, 'configured.pids');
  // Config's servers start for ACP sessions too; of two servers named `both`, config's wins.
  writeFileSync(
    join(home, 'config.yaml'),
    `mcp:\n  servers:\n    both: ${stdioServerYaml('configured', configPids)}\n`,
  );
  const model = writeScriptedModel(home, {
    rules: [
      callsThenReply(
        'ask the editor servers',
        [
          { name: 'mcp__editor__echo', arguments: { text: 'from acp' } },
          { name: 'mcp__remote_docs__echo', arguments: { text: 'over http' } },
          { name: 'mcp__legacy__echo', arguments: { message: 'over sse' } },
          { name: 'mcp__both__whoami', arguments: {} },
        ],
        'the last said: {{lastToolResult}}',
      ),
    ],
  });
  await withLoomAcp({ home, model }, async (agent, log) => {
    const init = await initialize(agent);
    assert.deepEqual(init.agentCapabilities?.mcpCapabilities, { http: true, sse: true });
    const { sessionId } = await agent.request('session/new', {
      cwd: workspace,
      mcpServers: [
        {
          name: 'editor',
          command: process.execPath,
          args: [STDIO_SERVER, 'editor', pidFile],
          env: [],
        },
        {
          type: 'http',
          name: 'remote.docs',
          url: http.url,
          headers: [{ name: 'Authorization', value: 'Bearer acp-client-token-2718' }],
        },
        { type: 'sse', name: 'legacy', url: sse.url, headers: [] },
        { name: 'broken', command: 'no-such-mcp-server-command', args: [], env: [] },
        { name: 'both', command: process.execPath, args: [STDIO_SERVER, 'client-both'], env: [] },
      ],
    });
    const [stdioPid] = startedPids(pidFile);
    assert.ok(stdioPid !== undefined && isAlive(stdioPid), 'the stdio server runs for the session');
    const turn = await promptFor(agent, log, sessionId, 'ask the editor servers');
    assert.equal(turn.stopReason, 'end_turn');
    const updates = turn.updates.filter(isToolResult);
    assert.deepEqual(
      updates.map((update) => update.sessionUpdate === 'tool_call_update' && update.status),
      ['completed', 'completed', 'completed', 'completed'],
    );
    assert.ok(JSON.stringify(turn.updates).includes('editor echo: from acp'));
    assert.ok(JSON.stringify(turn.updates).includes('http echo: over http'));
    assert.ok(JSON.stringify(turn.updates).includes('Echo: over sse'));
    assert.equal(turn.text, `the last said: configured pid ${startedPids(configPids)[0]}`);
  });
  for (const pid of [...startedPids(pidFile), ...startedPids(configPids)])
    assert.equal(isAlive(pid), false, `server ${pid} still runs`);
});
