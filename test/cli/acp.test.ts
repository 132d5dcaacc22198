import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { initialize, isToolResult, messageText } from '../helpers/acp-client.js';
import { EDITOR_CAPABILITIES, FakeEditor } from '../helpers/fake-editor.js';
import { callsThenReply, stuckAfterGlob } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { type PermissionAnswer, withLoomAcp } from './loom-acp.js';
import { scriptedFolders, writeScriptedModel } from './loom-process.js';

const makeFileModel = {
  rules: [
    callsThenReply(
      'make a file',
      [{ name: 'write_file', arguments: { path: 'a.txt', content: 'hi there' } }],
      'wrote it: {{lastToolResult}}',
    ),
  ],
};

test('loom acp: a prompt streams its tool call and answer, and the session is stored', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, makeFileModel);
  const sessionId = await withLoomAcp({ home, model }, async (agent, log) => {
    const init = await initialize(agent);
    assert.equal(init.protocolVersion, acp.PROTOCOL_VERSION);
    assert.equal(init.agentCapabilities?.loadSession, true);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const response = await agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'make a file' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    const call = log.updates.find((update) => update.sessionUpdate === 'tool_call');
    assert.ok(call?.sessionUpdate === 'tool_call');
    assert.equal(call.kind, 'edit');
    assert.match(call.title, /write_file a\.txt/);
    const result = log.updates.find(isToolResult);
    assert.ok(result?.sessionUpdate === 'tool_call_update');
    assert.equal(result.toolCallId, call.toolCallId);
    assert.equal(result.status, 'completed');
    assert.ok(log.updates.indexOf(call) < log.updates.indexOf(result));
    assert.match(messageText(log.updates), /^wrote it: .+/);
    return sessionId;
  });
  assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'hi there');
  const file = readdirSync(join(home, 'sessions')).find((name) => name === `${sessionId}.jsonl`);
  assert.ok(file, `no session file for ${sessionId}`);
  const stored = loadSessionFile(join(home, 'sessions', file));
  assert.equal(stored.header.cwd, workspace);
  assert.deepEqual(checkSessionInvariants(stored.events), []);

  await withLoomAcp({ home, model }, async (agent, log) => {
    await initialize(agent);
    await agent.request('session/load', { sessionId, cwd: workspace, mcpServers: [] });
    const kinds = log.updates.map((update) => update.sessionUpdate);
    assert.deepEqual(kinds, [
      'user_message_chunk',
      'tool_call',
      'tool_call_update',
      'agent_message_chunk',
      // The latest context size, once, after the history.
      'usage_update',
      'available_commands_update',
    ]);
    assert.match(messageText(log.updates), /^wrote it: .+/);
  });
});

test('loom acp: session/cancel ends a hanging turn with stopReason cancelled', async () => {
  const { home, workspace, model } = scriptedFolders(stuckAfterGlob);
  await withLoomAcp({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const prompt = agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'stuck' }],
    });
    await log.waitFor(isToolResult);
    await agent.notify('session/cancel', { sessionId });
    assert.equal((await prompt).stopReason, 'cancelled');
  });
});

test('loom acp: an "ask" permission rule asks the client, and a rejection denies the call', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  writeFileSync(join(home, 'config.yaml'), 'permissions:\n  - tool: write_file\n    action: ask\n');
  const model = writeScriptedModel(home, makeFileModel);
  const asked: acp.RequestPermissionRequest[] = [];
  const permission: PermissionAnswer = (request) => {
    asked.push(request);
    return { outcome: { outcome: 'selected', optionId: 'reject' } };
  };
  await withLoomAcp({ home, model, permission }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const response = await agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'make a file' }],
    });
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(asked.length, 1);
    assert.equal(asked[0]?.toolCall.kind, 'edit');
    assert.deepEqual(asked[0]?.toolCall.locations, [{ path: join(workspace, 'a.txt') }]);
    const result = log.updates.find(isToolResult);
    assert.ok(result?.sessionUpdate === 'tool_call_update');
    assert.equal(result.status, 'failed');
  });
  assert.equal(existsSync(join(workspace, 'a.txt')), false);
});

test('loom acp: with the editor’s files and terminal, an edit lands in the buffer with its diff and bash runs in a terminal', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const notes = join(workspace, 'notes.txt');
  writeFileSync(notes, 'on disk\n');
  const model = writeScriptedModel(home, {
    rules: [
      callsThenReply(
        'edit then run',
        [
          {
            name: 'edit_file',
            arguments: { path: 'notes.txt', old_string: 'unsaved', new_string: 'edited' },
          },
          { name: 'bash', arguments: { command: 'echo ran' } },
        ],
        '{{lastToolResult}}',
      ),
    ],
  });
  const editor = new FakeEditor();
  editor.buffers.set(notes, 'unsaved\n');
  try {
    await withLoomAcp({ home, model, editor }, async (agent, log) => {
      await initialize(agent, EDITOR_CAPABILITIES);
      const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
      const response = (await agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'edit then run' }],
      })) as acp.PromptResponse & { usage?: { totalTokens: number } };
      assert.equal(response.stopReason, 'end_turn');
      assert.ok((response.usage?.totalTokens ?? 0) > 0, 'the response carries the usage');
      const [edit, run] = log.updates.filter((update) => update.sessionUpdate === 'tool_call');
      assert.ok(edit?.sessionUpdate === 'tool_call' && run?.sessionUpdate === 'tool_call');
      const statuses = (toolCallId: string) =>
        log.updates.flatMap((update) =>
          (update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') &&
          update.toolCallId === toolCallId &&
          update.status
            ? [update.status]
            : [],
        );
      assert.deepEqual(statuses(edit.toolCallId), ['pending', 'in_progress', 'completed']);
      assert.deepEqual(statuses(run.toolCallId), ['pending', 'in_progress', 'completed']);
      const edited = log.updates.find(
        (update) =>
          isToolResult(update) && 'toolCallId' in update && update.toolCallId === edit.toolCallId,
      );
      assert.ok(edited?.sessionUpdate === 'tool_call_update');
      assert.deepEqual(edited.content?.[0], {
        type: 'diff',
        path: notes,
        oldText: 'unsaved\n',
        newText: 'edited\n',
      });
      assert.deepEqual(edited.locations, [{ path: notes, line: 1 }]);
      assert.match(messageText(log.updates), /^ran\n\[exit code: 0\]$/);
    });
  } finally {
    editor.closeAll();
  }
  assert.equal(editor.buffers.get(notes), 'edited\n');
  assert.equal(readFileSync(notes, 'utf8'), 'on disk\n');
  assert.deepEqual(editor.methods(), [
    'fs/read_text_file',
    'fs/write_text_file',
    'terminal/create',
    'terminal/wait_for_exit',
    'terminal/output',
    'terminal/release',
  ]);
});

test('loom acp: the prompt response carries the cache tokens read and written the model reported', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, {
    default: { reply: 'ok', usage: { input: 100, output: 5, cacheRead: 60, cacheWrite: 30 } },
  });
  await withLoomAcp({ home, model }, async (agent) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const response = (await agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'hello' }],
    })) as acp.PromptResponse & { usage?: Record<string, number> };
    assert.equal(response.stopReason, 'end_turn');
    assert.deepEqual(response.usage, {
      inputTokens: 100,
      outputTokens: 5,
      totalTokens: 105,
      cachedReadTokens: 60,
      cachedWriteTokens: 30,
    });
  });
});
