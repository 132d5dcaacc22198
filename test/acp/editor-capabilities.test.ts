/**
 * The editor's files and terminal serve the tools when the client advertises them at
 * `initialize`: reads see unsaved buffers, writes and edits land in the editor (not on disk),
 * bash runs in an editor terminal (released after, killed when the turn is cancelled), and the
 * workspace boundary and permission rules still stop a call before the editor hears of it.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type * as acp from '@agentclientprotocol/sdk';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, promptFor, withAcpInProcess } from '../helpers/acp-client.js';
import { EDITOR_CAPABILITIES, FakeEditor } from '../helpers/fake-editor.js';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

type ToolUpdate = Extract<acp.SessionUpdate, { sessionUpdate: 'tool_call_update' }>;

const toolUpdates = (updates: readonly acp.SessionUpdate[]) =>
  updates.filter((update): update is ToolUpdate => update.sessionUpdate === 'tool_call_update');

const fileModel = {
  rules: [
    callsThenReply(
      '^read',
      [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
      '{{lastToolResult}}',
    ),
    callsThenReply(
      '^edit',
      [
        {
          name: 'edit_file',
          arguments: { path: 'notes.txt', old_string: 'line two', new_string: 'line 2' },
        },
      ],
      '{{lastToolResult}}',
    ),
    callsThenReply(
      '^write',
      [{ name: 'write_file', arguments: { path: 'fresh.txt', content: 'fresh\n' } }],
      '{{lastToolResult}}',
    ),
    callsThenReply(
      '^escape',
      [{ name: 'write_file', arguments: { path: '../outside.txt', content: 'x' } }],
      '{{lastToolResult}}',
    ),
    callsThenReply(
      '^secret',
      [{ name: 'read_file', arguments: { path: 'secret.txt' } }],
      '{{lastToolResult}}',
    ),
  ],
};

test('acp with the editor fs: reads see unsaved buffers, edits and writes land in the editor, the boundary and rules hold', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  writeFileSync(
    join(home, 'config.yaml'),
    'permissions:\n  - { tool: read_file, match: { path: secret.txt }, action: deny }\n',
  );
  writeFileSync(join(workspace, 'notes.txt'), 'on disk\n');
  writeFileSync(join(workspace, 'secret.txt'), 'secret\n');
  const model = writeScriptedModel(home, fileModel);
  const editor = new FakeEditor();
  const notes = join(workspace, 'notes.txt');
  editor.buffers.set(notes, 'unsaved line one\nunsaved line two\n');
  await withAcpInProcess({ home, model, editor }, async (agent, log) => {
    await initialize(agent, EDITOR_CAPABILITIES);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });

    const read = await promptFor(agent, log, sessionId, 'read');
    assert.match(read.text, /1\tunsaved line one\n\s+2\tunsaved line two/);
    assert.deepEqual(editor.requests[0], {
      method: 'fs/read_text_file',
      params: { sessionId, path: notes },
    });

    const edit = await promptFor(agent, log, sessionId, 'edit');
    assert.match(edit.text, /replaced 1 occurrence in notes\.txt/);
    assert.equal(editor.buffers.get(notes), 'unsaved line one\nunsaved line 2\n');
    assert.equal(readFileSync(notes, 'utf8'), 'on disk\n', 'the disk is the editor’s to save');
    const edited = toolUpdates(edit.updates).at(-1);
    assert.equal(edited?.status, 'completed');
    assert.deepEqual(edited?.locations, [{ path: notes, line: 2 }]);
    assert.deepEqual(edited?.content?.[0], {
      type: 'diff',
      path: notes,
      oldText: 'unsaved line one\nunsaved line two\n',
      newText: 'unsaved line one\nunsaved line 2\n',
    });

    const write = await promptFor(agent, log, sessionId, 'write');
    assert.match(write.text, /wrote 6 bytes to fresh\.txt \(created\)/);
    assert.equal(editor.buffers.get(join(workspace, 'fresh.txt')), 'fresh\n');
    assert.equal(existsSync(join(workspace, 'fresh.txt')), false);

    const before = editor.requests.length;
    const outside = await promptFor(agent, log, sessionId, 'escape');
    assert.match(outside.text, /outside the workspace/);
    const secret = await promptFor(agent, log, sessionId, 'secret');
    assert.match(secret.text, /denied/);
    assert.deepEqual(editor.requests.slice(before), [], 'the editor never hears of a refused call');
  });
});

test('acp with only readTextFile advertised: reads go through the editor, writes to the disk', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, fileModel);
  const editor = new FakeEditor();
  await withAcpInProcess({ home, model, editor }, async (agent, log) => {
    await initialize(agent, { fs: { readTextFile: true } });
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    await promptFor(agent, log, sessionId, 'write');
    assert.equal(readFileSync(join(workspace, 'fresh.txt'), 'utf8'), 'fresh\n');
    assert.deepEqual(editor.methods(), []);
  });
});

test('acp with the editor terminal: bash runs in it, shows it in the tool call, and releases it', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [callsThenReply('^run', [bashCall('echo "in $PWD"; exit 3')], '{{lastToolResult}}')],
  });
  const editor = new FakeEditor();
  await withAcpInProcess({ home, model, editor }, async (agent, log) => {
    await initialize(agent, EDITOR_CAPABILITIES);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const run = await promptFor(agent, log, sessionId, 'run');
    assert.match(run.text, /in .+\n\[exit code: 3\]/);
    assert.deepEqual(editor.methods(), [
      'terminal/create',
      'terminal/wait_for_exit',
      'terminal/output',
      'terminal/release',
    ]);
    const created = editor.requests[0]?.params as acp.CreateTerminalRequest;
    assert.equal(created.sessionId, sessionId);
    // The sandbox holds in the editor's terminal too: bwrap runs the shell, the workspace bound.
    assert.match(created.command, /(^|\/)bwrap$/);
    const args = created.args ?? [];
    assert.deepEqual(args.slice(-3).slice(1), ['-c', 'echo "in $PWD"; exit 3']);
    assert.ok(args.some((arg, index) => arg === '--bind' && args[index + 1] === workspace));
    assert.equal(created.cwd, workspace);
    assert.ok(created.env?.some((variable) => variable.name === 'LOOM_COMMAND_ID'));
    const updates = toolUpdates(run.updates);
    assert.deepEqual(
      updates.map((update) => update.status ?? update.content?.[0]?.type),
      ['in_progress', 'terminal', 'completed'],
    );
    assert.deepEqual(updates.at(-1)?.content?.[0], { type: 'terminal', terminalId: 'terminal-1' });
  });
});

test('acp with the editor terminal: session/cancel kills the running command and releases its terminal', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [callsThenReply('^sleep', [bashCall('sleep 60')], 'never')],
  });
  const editor = new FakeEditor();
  try {
    await withAcpInProcess({ home, model, editor }, async (agent) => {
      await initialize(agent, EDITOR_CAPABILITIES);
      const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
      const prompt = agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'sleep' }],
      });
      await editor.waitFor('terminal/create');
      await agent.notify('session/cancel', { sessionId });
      assert.equal((await prompt).stopReason, 'cancelled');
      await editor.waitFor('terminal/kill');
      await editor.waitFor('terminal/release');
    });
  } finally {
    editor.closeAll();
  }
});
