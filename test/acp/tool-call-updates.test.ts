/**
 * How a prompt's tool calls and usage reach an ACP client, with Loom's ACP server in this
 * process and the scripted model: each call `pending` (with the file it names), `in_progress`
 * once it runs, then `completed` or `failed` (an edit with its diff and line); a refused call
 * never runs; the prompt response carries the turn's tokens; and `/plan`, `/todos`, `/usage`.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type * as acp from '@agentclientprotocol/sdk';
import type { Usage as AcpUsage } from '@agentclientprotocol/sdk/unstable';
import { loadSessionFile } from '../../src/core/session-load.js';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, promptFor, withAcpInProcess } from '../helpers/acp-client.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

/** What the client sees of one call: `kind:status` per update, in order. */
function callStory(updates: readonly acp.SessionUpdate[], toolCallId: string): string[] {
  return updates.flatMap((update) => {
    if (update.sessionUpdate === 'tool_call' && update.toolCallId === toolCallId)
      return [`call:${update.status}`];
    if (update.sessionUpdate === 'tool_call_update' && update.toolCallId === toolCallId)
      return [`update:${update.status}`];
    return [];
  });
}

const model = {
  rules: [
    {
      when: '^rewrite',
      steps: [
        {
          tools: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'new\n' } }],
          usage: { input: 100, output: 7 },
        },
        {
          tools: [{ name: 'read_file', arguments: { path: 'a.txt', offset: 1, limit: 5 } }],
          usage: { input: 120, output: 5 },
        },
        { reply: 'done', usage: { input: 130, output: 2 } },
      ],
    },
    callsThenReply(
      '^denied',
      [{ name: 'edit_file', arguments: { path: 'a.txt', old_string: 'new', new_string: 'x' } }],
      '{{lastToolResult}}',
    ),
    callsThenReply(
      '^missing',
      [{ name: 'edit_file', arguments: { path: 'a.txt', old_string: 'nowhere', new_string: 'x' } }],
      '{{lastToolResult}}',
    ),
    callsThenReply(
      '^todos',
      [
        {
          name: 'todo_write',
          arguments: {
            todos: [
              { content: 'Read the code', status: 'completed' },
              { content: 'Write the test', status: 'in_progress' },
            ],
          },
        },
      ],
      'listed',
    ),
  ],
};

test('acp: a tool call goes pending → in_progress → completed with its file, diff and line; the response carries the usage', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const file = join(workspace, 'a.txt');
  writeFileSync(file, 'old\n');
  const scripted = writeScriptedModel(home, model);
  await withAcpInProcess({ home, model: scripted }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const from = log.updates.length;
    const response = (await agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'rewrite' }],
    })) as acp.PromptResponse & { usage?: AcpUsage };
    assert.equal(response.stopReason, 'end_turn');
    assert.deepEqual(response.usage, { inputTokens: 350, outputTokens: 14, totalTokens: 364 });
    const updates = log.updates.slice(from);
    const calls = updates.filter(
      (update): update is Extract<acp.SessionUpdate, { sessionUpdate: 'tool_call' }> =>
        update.sessionUpdate === 'tool_call',
    );
    assert.equal(calls.length, 2);
    const [write, read] = calls;
    assert.ok(write && read);
    assert.deepEqual(callStory(updates, write.toolCallId), [
      'call:pending',
      'update:in_progress',
      'update:completed',
    ]);
    assert.deepEqual(write.locations, [{ path: file }]);
    const written = updates.findLast(
      (update) =>
        update.sessionUpdate === 'tool_call_update' && update.toolCallId === write.toolCallId,
    );
    assert.ok(written?.sessionUpdate === 'tool_call_update');
    assert.deepEqual(written.content?.[0], {
      type: 'diff',
      path: file,
      oldText: 'old\n',
      newText: 'new\n',
    });
    assert.equal(written.content?.[1]?.type, 'content');
    assert.deepEqual(read.locations, [{ path: file, line: 1 }]);
    assert.equal(readFileSync(file, 'utf8'), 'new\n');
  });
});

test('acp: a denied call goes pending → failed without running; a failing one pending → in_progress → failed', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  writeFileSync(join(workspace, 'a.txt'), 'new\n');
  writeFileSync(join(home, 'config.yaml'), 'permissions:\n  - tool: edit_file\n    action: ask\n');
  const scripted = writeScriptedModel(home, model);
  let answer: 'allow' | 'reject' = 'reject';
  await withAcpInProcess(
    {
      home,
      model: scripted,
      permission: () => ({ outcome: { outcome: 'selected', optionId: answer } }),
    },
    async (agent, log) => {
      await initialize(agent);
      const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
      const denied = await promptFor(agent, log, sessionId, 'denied');
      const deniedCall = denied.updates.find((update) => update.sessionUpdate === 'tool_call');
      assert.ok(deniedCall?.sessionUpdate === 'tool_call');
      assert.deepEqual(callStory(denied.updates, deniedCall.toolCallId), [
        'call:pending',
        'update:failed',
      ]);
      answer = 'allow';
      const missing = await promptFor(agent, log, sessionId, 'missing');
      const missingCall = missing.updates.find((update) => update.sessionUpdate === 'tool_call');
      assert.ok(missingCall?.sessionUpdate === 'tool_call');
      assert.deepEqual(callStory(missing.updates, missingCall.toolCallId), [
        'call:pending',
        'update:in_progress',
        'update:failed',
      ]);
      assert.match(missing.text, /old_string was not found in a\.txt/);
    },
  );
});

test('acp: /todos, /plan and /usage answer as text without a model turn', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const scripted = writeScriptedModel(home, model);
  const sessionId = await withAcpInProcess({ home, model: scripted }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const empty = await promptFor(agent, log, sessionId, '/todos');
    assert.equal(empty.text, 'The todo list is empty.');
    const listed = await promptFor(agent, log, sessionId, 'todos');
    assert.ok(listed.updates.some((update) => update.sessionUpdate === 'plan'));
    const todos = await promptFor(agent, log, sessionId, '/todos');
    assert.equal(todos.text, '- [completed] Read the code\n- [in_progress] Write the test');

    const plan = await promptFor(agent, log, sessionId, '/plan');
    assert.equal(plan.stopReason, 'end_turn');
    assert.equal(plan.text, 'Plan mode is on.');
    assert.deepEqual(
      plan.updates.filter((update) => update.sessionUpdate === 'current_mode_update'),
      [{ sessionUpdate: 'current_mode_update', currentModeId: 'plan' }],
    );
    assert.equal((await promptFor(agent, log, sessionId, '/plan')).text, 'Plan mode is off.');

    const usage = await promptFor(agent, log, sessionId, '/usage');
    assert.match(usage.text, /^Tokens this session used: [\d.]+k? in, [\d.]+k? out\.$/);
    return sessionId;
  });
  const events = loadSessionFile(join(home, 'sessions', `${sessionId}.jsonl`)).events;
  assert.deepEqual(
    events.filter((event) => event.type === 'plan/mode').map((event) => event.data),
    [
      { mode: 'plan', by: 'user' },
      { mode: 'default', by: 'user' },
    ],
  );
  assert.equal(
    events.filter((event) => event.type === 'turn/end').length,
    1,
    'only the todos prompt was a turn',
  );
});
