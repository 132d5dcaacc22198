import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { type AcpProviderOptions, createAcpProvider } from '../../src/subagent/acp-provider.js';
import { SubagentError, type SubagentStartRequest } from '../../src/subagent/contract.js';
import { SubagentRegistry } from '../../src/subagent/registry.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { isAlive, isGroupAlive, waitUntil } from '../helpers/process-state.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { waitingModel } from '../helpers/waiting-model.js';

const fakeAgent = fileURLToPath(new URL('./fixtures/fake-acp-agent.mjs', import.meta.url));

function fixture(options: Partial<AcpProviderOptions> = {}) {
  const home = temporaryFolder('loom-acp-provider-');
  const runtime = runtimeOver(waitingModel({ default: { reply: 'unused' } }), home);
  const pids = join(home, 'agent-pids');
  const registry = new SubagentRegistry(runtime.root);
  registry.register(
    createAcpProvider({
      name: 'fake',
      runtime,
      command: process.execPath,
      args: [fakeAgent],
      env: { FAKE_AGENT_PIDS: pids },
      ...options,
    }),
  );
  const start = (prompt: string, more: Partial<SubagentStartRequest> = {}) =>
    registry.start('fake', {
      parent: { sessionId: null, delegationDepth: 0 },
      prompt,
      description: prompt,
      ...more,
    });
  const agentPids = () =>
    existsSync(pids) ? readFileSync(pids, 'utf8').trim().split('\n').map(Number) : [];
  const events = (sessionId: string) => loadSessionFile(runtime.store.pathOf(sessionId)).events;
  return { runtime, start, agentPids, events, home };
}

function ofType(events: readonly SessionEvent[], type: string) {
  return events
    .filter((event) => event.type === type)
    .map((event) => event.data as Record<string, unknown>);
}

test("acp provider: the agent's text and tool calls become the child's log; the answer is its last text", async () => {
  const { start, agentPids, events } = fixture();
  const run = start('tools');
  const result = await run.result;
  assert.equal(result.stopReason, 'completed', result.diagnostic);
  assert.equal(result.output, 'the answer');
  assert.deepEqual(result.usage, { input: 10, output: 5 });
  // A run settles once its agent has exited.
  const [pid] = agentPids();
  assert.ok(pid);
  assert.equal(isAlive(pid), false);
  await waitUntil(() => !isGroupAlive(pid), 'the watchdog of the group to end');

  const log = events(run.id);
  assert.deepEqual(checkSessionInvariants(log), []);
  assert.deepEqual(ofType(log, 'acp/session')[0], {
    provider: 'fake',
    remoteSessionId: 'fake-session-1',
    agent: 'fake',
  });
  assert.deepEqual(
    ofType(log, 'tool/call').map(({ callId, name, arguments: args }) => ({ callId, name, args })),
    [
      { callId: 'c1', name: 'read_file', args: { path: 'a.txt' } },
      { callId: 'c2', name: 'Search', args: {} },
    ],
  );
  // c2 failed before c1 completed; results are logged in call order.
  assert.deepEqual(
    ofType(log, 'tool/result').map(({ callId, content, isError }) => ({
      callId,
      content,
      isError,
    })),
    [
      { callId: 'c1', content: 'hello from a.txt', isError: false },
      { callId: 'c2', content: 'no such pattern', isError: true },
    ],
  );
  assert.deepEqual(
    ofType(log, 'acp/tool-status').map(({ callId, status }) => `${callId} ${status}`),
    ['c1 pending', 'c2 pending', 'c1 in_progress', 'c2 failed', 'c1 completed'],
  );
  assert.equal(
    ofType(log, 'assistant/chunk')
      .map((chunk) => chunk.text)
      .join(''),
    'let me lookthe answer',
  );
  assert.equal(ofType(log, 'turn/end')[0]?.reason, 'completed');
});

test('acp provider: instructions go before the prompt for an agent other than Loom', async () => {
  const { start } = fixture();
  const result = await start('echo', { instructions: 'answer in one word' }).result;
  assert.equal(result.output, 'answer in one word | echo');
});

test('acp provider: an agent that dies mid-turn ends the child with an error naming its exit and stderr', async () => {
  const { start, events } = fixture();
  const run = start('crash');
  const result = await run.result;
  assert.equal(result.stopReason, 'error');
  assert.match(result.diagnostic ?? '', /boom: the fake agent crashed/);
  const log = events(run.id);
  assert.deepEqual(checkSessionInvariants(log), []);
  assert.equal(ofType(log, 'turn/end')[0]?.reason, 'error');
});

/** Waits until the agent has streamed into the child's log: its turn is running remotely. */
async function remoteTurnRunning(events: (id: string) => readonly SessionEvent[], id: string) {
  await waitUntil(
    () => events(id).some((event) => event.type === 'acp/session'),
    'the remote session to exist',
  );
}

test('acp provider: cancel sends session/cancel, and an agent that honours it ends the turn cancelled', async () => {
  // A grace period the test would never outlive: only session/cancel can end this turn.
  const { start, agentPids, events } = fixture({ cancelGraceMs: 600_000 });
  const run = start('hang');
  await remoteTurnRunning(events, run.id);
  await waitUntil(() => agentPids().length === 1, 'the agent to start');
  run.cancel('the test cancelled it');
  const result = await run.result;
  assert.equal(result.stopReason, 'cancelled');
  assert.equal(result.diagnostic, 'the test cancelled it');
  const [pid] = agentPids();
  assert.equal(isAlive(pid as number), false);
  const log = events(run.id);
  assert.deepEqual(checkSessionInvariants(log), []);
  assert.equal(ofType(log, 'turn/end')[0]?.reason, 'aborted');
});

test('acp provider: an agent that ignores session/cancel is killed, group and all, after the grace period', async () => {
  const { start, agentPids, events } = fixture({ cancelGraceMs: 50 });
  const run = start('deaf');
  await remoteTurnRunning(events, run.id);
  await waitUntil(() => agentPids().length === 1, 'the agent to start');
  run.cancel();
  const result = await run.result;
  assert.equal(result.stopReason, 'cancelled');
  const [pid] = agentPids();
  assert.equal(isAlive(pid as number), false);
  await waitUntil(() => !isGroupAlive(pid as number), 'the group to end');
  assert.equal(ofType(events(run.id), 'turn/end')[0]?.reason, 'aborted');
});

test('acp provider: a request it cannot serve fails before any process or session starts', () => {
  const { start, agentPids, runtime } = fixture();
  const refusals: Array<[string, Partial<SubagentStartRequest>, RegExp]> = [
    ['schema', { outputSchema: { type: 'object' } }, /does not support outputSchema/],
    ['filter', { toolFilter: ['bash'] }, /does not support toolFilter/],
    ['depth', { maxDepth: 2 }, /does not support maxDepth/],
    ['persona', { persona: 'a pirate' }, /does not support persona/],
    ['keep', { continuable: true }, /one-shot children/],
    ['model', { model: 'openai:gpt-4o' }, /chooses its own model/],
  ];
  for (const [prompt, more, message] of refusals) {
    assert.throws(
      () => start(prompt, more),
      (error: unknown) =>
        error instanceof SubagentError &&
        error.code === 'UNSUPPORTED_CAPABILITY' &&
        message.test(error.message),
      prompt,
    );
  }
  assert.deepEqual(agentPids(), []);
  assert.deepEqual(runtime.store.list(), []);
});

/** The provider itself, bypassing the registry's refusals: what it does after `initialize`. */
function directProvider(env: Record<string, string>) {
  const home = temporaryFolder('loom-acp-provider-');
  const runtime = runtimeOver(waitingModel({ default: { reply: 'unused' } }), home);
  const provider = createAcpProvider({
    name: 'fake',
    runtime,
    command: process.execPath,
    args: [fakeAgent],
    env,
  });
  return (prompt: string, more: Partial<SubagentStartRequest>) =>
    provider.start({ parent: { sessionId: null, delegationDepth: 0 }, prompt, ...more }).result;
}

const okSchema = {
  type: 'object',
  properties: { ok: { type: 'boolean' } },
  required: ['ok'],
};

test('acp provider: an agent whose initialize does not advertise loom/subagent gets no schema, filter or persona; the run fails naming them', async () => {
  const result = await directProvider({})('shaped', {
    outputSchema: okSchema,
    persona: 'a pirate',
  });
  assert.equal(result.stopReason, 'error');
  assert.match(result.diagnostic ?? '', /the agent fake does not support outputSchema, persona/);
  assert.match(result.diagnostic ?? '', /_meta\.loom\/subagent/);
});

test("acp provider: a Loom child's structured answer is checked against the schema by the parent", async () => {
  const good = await directProvider({ FAKE_AGENT_VALUE: '{"ok":true}' })('shaped', {
    outputSchema: okSchema,
  });
  assert.equal(good.stopReason, 'completed', good.diagnostic);
  assert.deepEqual(good.structured, { ok: true });
  assert.equal(good.output, '{"ok":true}');
  const bad = await directProvider({ FAKE_AGENT_VALUE: '{"ok":"yes"}' })('shaped', {
    outputSchema: okSchema,
  });
  assert.equal(bad.stopReason, 'error');
  assert.equal(bad.structured, undefined);
  assert.match(
    bad.diagnostic ?? '',
    /structured answer does not match the schema:\n- .*ok.*boolean/,
  );
  const none = await directProvider({ FAKE_AGENT_VALUE: '{"ok":true}' })('echo', {
    outputSchema: okSchema,
  });
  assert.equal(none.stopReason, 'error');
  assert.match(none.diagnostic ?? '', /completed without a structured answer/);
});
