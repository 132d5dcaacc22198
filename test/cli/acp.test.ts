import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { initialize, messageText, updateLog } from '../helpers/acp-client.js';
import { callsThenReply, stuckAfterGlob } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { scriptedFolders, startLoom, writeScriptedModel } from './loom-process.js';

type PermissionAnswer = (request: acp.RequestPermissionRequest) => acp.RequestPermissionResponse;

/** Spawns `loom acp` and runs `op` as an ACP client over its stdio; the child exits after. */
async function withLoomAcp<T>(
  options: { home: string; model: string; permission?: PermissionAnswer },
  op: (agent: acp.ClientContext, log: ReturnType<typeof updateLog>) => Promise<T>,
): Promise<T> {
  const loom = startLoom(['acp', '--model', `scripted:${options.model}`], {
    home: options.home,
    keepStdinOpen: true,
  });
  const log = updateLog();
  const stream = acp.ndJsonStream(
    Writable.toWeb(loom.child.stdin),
    Readable.toWeb(loom.child.stdout) as ReadableStream<Uint8Array>,
  );
  const client = acp
    .client({ name: 'loom-test' })
    .onNotification('session/update', ({ params }) => log.push(params.update))
    .onRequest('session/request_permission', ({ params }) => {
      if (!options.permission) throw new Error('no permission request was expected');
      return options.permission(params);
    });
  try {
    return await client.connectWith(stream, (agent) => op(agent, log));
  } finally {
    if (!loom.child.stdin.writableEnded) loom.child.stdin.end();
    const { code } = await loom.exited;
    assert.equal(code, 0, loom.stderr());
  }
}

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
    const result = log.updates.find((update) => update.sessionUpdate === 'tool_call_update');
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
    await log.waitFor((update) => update.sessionUpdate === 'tool_call_update');
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
    const result = log.updates.find((update) => update.sessionUpdate === 'tool_call_update');
    assert.ok(result?.sessionUpdate === 'tool_call_update');
    assert.equal(result.status, 'failed');
  });
  assert.equal(existsSync(join(workspace, 'a.txt')), false);
});
