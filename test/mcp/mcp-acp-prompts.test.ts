/**
 * MCP prompts and resources over ACP (`loom acp` with the scripted model, the everything server
 * sent by the client): each server prompt is an available command `mcp__SERVER__PROMPT` with its
 * arguments as the input hint and runs as its turn; a missing argument is answered as text; a
 * `resource_link` to a URI the server serves and an `@server:uri` mention attach the resource's
 * text to the user message.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withLoomAcp } from '../cli/loom-acp.js';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, messageText, promptFor } from '../helpers/acp-client.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { EVERYTHING_SERVER } from './mcp-fixtures.js';

test('loom acp: server prompts are available commands that run; resource links and @mentions attach the resource', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, { default: { reply: 'ok: {{prompt}}' } });
  await withLoomAcp({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', {
      cwd: workspace,
      mcpServers: [
        { name: 'every', command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], env: [] },
      ],
    });
    const offered = await log.waitFor(
      (update) => update.sessionUpdate === 'available_commands_update',
    );
    assert.ok(offered.sessionUpdate === 'available_commands_update');
    const args = offered.availableCommands.find(
      (command) => command.name === 'mcp__every__args-prompt',
    );
    assert.deepEqual(args?.input, { hint: 'city [state]' });
    assert.match(String(args?.description), /\(MCP server every\)$/);
    assert.ok(
      offered.availableCommands.some((command) => command.name === 'mcp__every__simple-prompt'),
    );

    const ran = await promptFor(agent, log, sessionId, '/mcp__every__args-prompt Paris');
    assert.equal(ran.stopReason, 'end_turn');
    assert.equal(ran.text, "ok: What's weather in Paris?");

    const missing = await promptFor(agent, log, sessionId, '/mcp__every__args-prompt');
    assert.equal(missing.stopReason, 'end_turn');
    assert.match(missing.text, /^\/mcp__every__args-prompt needs city: /);

    const from = log.updates.length;
    const linked = await agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'summarize this' },
        { type: 'resource_link', name: 'first', uri: 'demo://resource/dynamic/text/1' },
        { type: 'resource_link', name: 'elsewhere', uri: 'https://example.invalid/nothing' },
      ],
    });
    assert.equal(linked.stopReason, 'end_turn');
    const linkedText = messageText(log.updates.slice(from));
    assert.match(
      linkedText,
      /^ok: summarize this\nfirst: demo:\/\/resource\/dynamic\/text\/1\nelsewhere: https:\/\/example\.invalid\/nothing\n\nAttached resource demo:\/\/resource\/dynamic\/text\/1 \(MCP server every\):\n\[resource demo:\/\/resource\/dynamic\/text\/1: text\/plain, \d+ bytes\]\nResource 1: This is a plaintext resource/,
    );
    assert.doesNotMatch(linkedText, /Attached resource https:/);

    const mentioned = await promptFor(
      agent,
      log,
      sessionId,
      'what does @every:demo://resource/dynamic/text/2 say?',
    );
    assert.match(
      mentioned.text,
      /Attached resource demo:\/\/resource\/dynamic\/text\/2 \(MCP server every\):\n\[resource demo:\/\/resource\/dynamic\/text\/2: text\/plain, \d+ bytes\]\nResource 2: This is a plaintext resource/,
    );
  });
});
