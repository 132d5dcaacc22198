/**
 * `/context` over ACP: offered in `available_commands_update`, and answered as one agent message
 * with the next request's breakdown (the same text as the terminal's), never sent to the model.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, promptFor, withAcpInProcess } from '../helpers/acp-client.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('acp: /context answers with the breakdown against the window the scripted file declares', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  writeFileSync(join(workspace, 'big.txt'), 'a line of the big file\n'.repeat(200));
  const model = writeScriptedModel(home, {
    context: 16_000,
    rules: [
      {
        when: 'read',
        steps: [
          { tools: [{ name: 'read_file', arguments: { path: 'big.txt' } }] },
          { reply: 'read it' },
        ],
      },
    ],
  });
  await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    const created = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const offered = await log.waitFor(
      (update) => update.sessionUpdate === 'available_commands_update',
    );
    assert.ok(
      offered.sessionUpdate === 'available_commands_update' &&
        offered.availableCommands.some((command) => command.name === 'context'),
    );
    await promptFor(agent, log, created.sessionId, 'read the big file');
    const answer = await promptFor(agent, log, created.sessionId, '/context');
    assert.equal(answer.stopReason, 'end_turn');
    assert.match(answer.text, /^context of the next request/);
    assert.match(answer.text, /tool results +1\.\dk {2}1 result\n/);
    assert.match(answer.text, /pruned stubs +0 {2}0 stubs/);
    assert.match(answer.text, /total .*% of 16k \(last reported/);
    assert.match(answer.text, /model scripted:.*: window of 16k as the model client states it/);
  });
});
