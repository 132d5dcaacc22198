import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, withAcpInProcess } from '../helpers/acp-client.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('acp session/load with the cwd of another workspace is refused naming both folders', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder('loom-workspace-');
  const other = temporaryFolder('loom-other-');
  const model = writeScriptedModel(home, { default: { reply: 'ok' } });
  const sessionId = await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    await log.waitFor((update) => update.sessionUpdate === 'available_commands_update');
    // Even the connection that serves it refuses to load it elsewhere.
    await assert.rejects(
      agent.request('session/load', { sessionId, cwd: other, mcpServers: [] }),
      (error: Error) =>
        error.message.includes(
          `session ${sessionId} belongs to the workspace ${workspace}, not to ${other}`,
        ),
    );
    return sessionId;
  });
  await withAcpInProcess({ home, model }, async (agent) => {
    await initialize(agent);
    await assert.rejects(
      agent.request('session/load', { sessionId, cwd: other, mcpServers: [] }),
      (error: Error & { code?: number }) => {
        assert.equal(error.code, -32602, 'invalid params');
        assert.ok(error.message.includes(`load it with cwd ${workspace}`), error.message);
        return true;
      },
    );
    await agent.request('session/load', { sessionId, cwd: workspace, mcpServers: [] });
  });
});
