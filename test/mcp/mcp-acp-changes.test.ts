/**
 * A server's prompts changing over ACP (`loom acp` with the scripted model, the changing fixture
 * server sent by the client): the prompt the server adds mid-session
 * (`notifications/prompts/list_changed`) reaches the client in a new `available_commands_update`
 * and runs as its turn; a resource it adds is attached to an `@server:uri` mention.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { withLoomAcp } from '../cli/loom-acp.js';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, promptFor, type Update } from '../helpers/acp-client.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { CHANGING_SERVER } from './mcp-fixtures.js';

const commandNames = (update: Update) =>
  update.sessionUpdate === 'available_commands_update'
    ? update.availableCommands.map((command) => command.name)
    : [];

test('loom acp: a prompt the server adds mid-session is sent in a new available_commands_update and runs', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      callsThenReply(
        'grow',
        [
          { name: 'mcp__change__add-prompt', arguments: { name: 'brief' } },
          { name: 'mcp__change__add-resource', arguments: { name: 'second' } },
        ],
        'grown',
      ),
    ],
    default: { reply: 'ok: {{prompt}}' },
  });
  await withLoomAcp({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', {
      cwd: workspace,
      mcpServers: [
        {
          name: 'change',
          command: process.execPath,
          args: [CHANGING_SERVER, join(home, 'wire.txt')],
          env: [],
        },
      ],
    });
    const first = await log.waitFor(
      (update) => update.sessionUpdate === 'available_commands_update',
    );
    assert.ok(commandNames(first).includes('mcp__change__first'));
    assert.ok(!commandNames(first).includes('mcp__change__brief'));

    const from = log.updates.length;
    const grown = await promptFor(agent, log, sessionId, 'grow');
    assert.equal(grown.text, 'grown');
    const changed = await log.waitFor(
      (update) => update.sessionUpdate === 'available_commands_update',
      from,
    );
    assert.ok(changed.sessionUpdate === 'available_commands_update');
    const brief = changed.availableCommands.find(
      (command) => command.name === 'mcp__change__brief',
    );
    assert.deepEqual(brief?.input, { hint: 'topic' });
    assert.equal(brief?.description, 'The added brief (MCP server change)');
    assert.ok(commandNames(changed).includes('mcp__change__first'));
    assert.ok(commandNames(changed).includes('plan'), 'the built-in commands stay');

    const ran = await promptFor(agent, log, sessionId, '/mcp__change__brief tides');
    assert.equal(ran.text, 'ok: brief about tides');
    const mentioned = await promptFor(agent, log, sessionId, 'read @change:fixture://second');
    assert.match(mentioned.text, /the resource second/);
  });
});
