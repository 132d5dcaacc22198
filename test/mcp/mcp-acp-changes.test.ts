/**
 * A server's prompts changing over ACP (`loom acp` with the scripted model, the changing fixture
 * server sent by the client): the prompt the server adds mid-session
 * (`notifications/prompts/list_changed`) reaches the client in a new `available_commands_update`
 * and runs as its turn; a resource it adds is attached to an `@server:uri` mention. A form the
 * server sends right after it connects (no call in flight) is the client's form for that session.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type * as acp from '@agentclientprotocol/sdk';
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { withLoomAcp } from '../cli/loom-acp.js';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, promptFor, type Update, withAcpInProcess } from '../helpers/acp-client.js';
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

test("loom acp: a form a session server sends right after it connects is that session's client form", async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [callsThenReply('go', [{ name: 'mcp__change__elicited', arguments: {} }], 'done')],
  });
  const forms: acp.CreateElicitationRequest[] = [];
  const fill = (request: acp.CreateElicitationRequest): acp.CreateElicitationResponse => {
    forms.push(request);
    return { action: 'accept', content: { question_1_other: 'Ada' } };
  };
  await withAcpInProcess({ home, model, elicitation: fill }, async (agent, log) => {
    await agent.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { elicitation: { form: {} } },
    });
    const { sessionId } = await agent.request('session/new', {
      cwd: workspace,
      mcpServers: [
        {
          name: 'change',
          command: process.execPath,
          args: [CHANGING_SERVER, join(home, 'wire.txt'), 'elicit-on-connect'],
          env: [],
        },
      ],
    });
    const { updates } = await promptFor(agent, log, sessionId, 'go');
    const results = updates
      .filter(
        (update) => update.sessionUpdate === 'tool_call_update' && update.status === 'completed',
      )
      .map((update) => JSON.stringify(update));
    assert.ok(
      results.some((text) => text.includes('\\"action\\":\\"accept\\"') && text.includes('Ada')),
      results.join('\n'),
    );
    assert.equal(forms.length, 1);
    assert.equal((forms[0] as { sessionId?: string }).sessionId, sessionId);
    assert.match(JSON.stringify(forms[0]), /MCP server change/);
  });
});
