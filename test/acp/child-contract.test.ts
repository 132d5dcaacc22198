import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, promptFor, withAcpInProcess } from '../helpers/acp-client.js';
import { sessions } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('acp session/new: _meta "loom/instructions" becomes the session\'s instructions; a non-text value is refused', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { default: { reply: 'ok' } });
  await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    await assert.rejects(
      agent.request('session/new', {
        cwd: home,
        mcpServers: [],
        _meta: { 'loom/instructions': 5 },
      }),
      (error: Error) => error.message.includes('_meta.loom/instructions must be text'),
    );
    const { sessionId } = await agent.request('session/new', {
      cwd: home,
      mcpServers: [],
      _meta: { 'loom/instructions': 'Answer as a haiku.' },
    });
    const { stopReason } = await promptFor(agent, log, sessionId, 'hello');
    assert.equal(stopReason, 'end_turn');
  });
  const [session] = sessions(home);
  const blob = session?.events.find((event) => event.type === 'prompt/blob');
  assert.match(
    (blob?.data as { system?: string } | undefined)?.system ?? '',
    /Answer as a haiku\./,
  );
});

test('acp initialize advertises _meta "loom/subagent": a Loom parent may send schema, tool filter, persona and instructions', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { default: { reply: 'ok' } });
  await withAcpInProcess({ home, model }, async (agent) => {
    const { agentCapabilities } = await initialize(agent);
    assert.deepEqual(agentCapabilities?._meta?.['loom/subagent'], {
      instructions: true,
      outputSchema: true,
      toolFilter: true,
      persona: true,
    });
  });
});

test('acp session/new: a malformed _meta tool filter, persona or output schema is refused naming its field', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { default: { reply: 'ok' } });
  const refusals: Array<[Record<string, unknown>, RegExp]> = [
    [{ 'loom/tool-filter': 'bash' }, /_meta\.loom\/tool-filter must be a list of tool names/],
    [{ 'loom/tool-filter': ['bash', 3] }, /_meta\.loom\/tool-filter must be a list of tool names/],
    [{ 'loom/persona': { text: 'a pirate' } }, /_meta\.loom\/persona must be text/],
    [
      { 'loom/output-schema': { type: 'object', nullable: true } },
      /_meta\.loom\/output-schema cannot be used as an output schema .*\n- _meta\.loom\/output-schema: "nullable" is not supported/,
    ],
  ];
  await withAcpInProcess({ home, model }, async (agent) => {
    await initialize(agent);
    for (const [meta, message] of refusals) {
      await assert.rejects(
        agent.request('session/new', { cwd: home, mcpServers: [], _meta: meta }),
        (error: Error) => message.test(error.message),
        JSON.stringify(meta),
      );
    }
  });
  assert.equal(sessions(home).length, 0, 'no refused session was made');
});

test('acp session/new: _meta "loom/output-schema" makes the turn answer through structured_output; the value returns in the prompt response _meta', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      { when: '^list', output: { files: ['a.ts', 'b.ts'] } },
      { when: '^chat', reply: 'just text' },
    ],
  });
  const schema = {
    type: 'object',
    properties: { files: { type: 'array', items: { type: 'string' } } },
    required: ['files'],
  };
  await withAcpInProcess({ home, model }, async (agent) => {
    await initialize(agent);
    const open = () =>
      agent.request('session/new', {
        cwd: home,
        mcpServers: [],
        _meta: { 'loom/output-schema': schema },
      });
    const first = await open();
    const answered = await agent.request('session/prompt', {
      sessionId: first.sessionId,
      prompt: [{ type: 'text', text: 'list the files' }],
    });
    assert.equal(answered.stopReason, 'end_turn');
    assert.deepEqual(answered._meta?.['loom/structured-output'], { files: ['a.ts', 'b.ts'] });
    // A plain text reply is not an answer: the turn fails naming the tool it had to call.
    const second = await open();
    await assert.rejects(
      agent.request('session/prompt', {
        sessionId: second.sessionId,
        prompt: [{ type: 'text', text: 'chat a little' }],
      }),
      (error: Error) => /finished without calling structured_output/.test(error.message),
    );
  });
});

test('acp session/new: _meta "loom/tool-filter" hides those tools and "loom/persona" replaces the persona section', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      {
        when: '^go',
        steps: [
          { tools: [{ name: 'bash', arguments: { command: 'echo hidden' } }] },
          { reply: 'after: {{lastToolResult}}' },
        ],
      },
    ],
  });
  await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', {
      cwd: home,
      mcpServers: [],
      _meta: { 'loom/tool-filter': ['bash'], 'loom/persona': 'You are a careful pirate.' },
    });
    const { stopReason, text } = await promptFor(agent, log, sessionId, 'go');
    assert.equal(stopReason, 'end_turn');
    assert.match(text, /^after: Unknown tool "bash"\./);
  });
  const [session] = sessions(home);
  const blob = session?.events.find((event) => event.type === 'prompt/blob');
  const data = blob?.data as { system: string; tools: Array<{ name: string }> };
  assert.ok(data, 'the request was logged');
  const names = data.tools.map((tool) => tool.name);
  assert.ok(names.includes('read_file'), names.join(', '));
  assert.equal(names.includes('bash'), false, names.join(', '));
  assert.match(data.system, /^You are a careful pirate\./);
  assert.doesNotMatch(data.system, /You are Loom/);
});
