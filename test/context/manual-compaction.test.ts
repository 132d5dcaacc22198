/**
 * Manual compaction on a logged session, with the scripted model reading files: every result
 * but those of the last `keepSteps` steps is pruned and logged as one `context/compact`
 * (`trigger: 'manual'`), the reloaded session's view carries the stubs, a second compaction has
 * nothing left and is logged as skipped, and a live agent's next request is sent pruned.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compactedView } from '../../src/context/compacted-view.js';
import { installContext } from '../../src/context/install.js';
import { compactLog, manualCompactionLine } from '../../src/context/manual-compaction.js';
import { prunedStub } from '../../src/context/pruning.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { SessionStore } from '../../src/core/session-store.js';
import type { ModelClient, ModelMessage, ModelRequest } from '../../src/llm/contract.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import { builtinTools } from '../../src/tools/index.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const FILES = 6;

const script: ScriptedModelFile = {
  rules: [
    {
      when: 'read',
      steps: [
        ...Array.from({ length: FILES }, (_, index) => ({
          tools: [{ name: 'read_file', arguments: { path: `file-${index + 1}.txt` } }],
        })),
        { reply: 'read them all' },
      ],
    },
    { when: 'again', reply: 'still here' },
  ],
};

/** A runtime whose scripted model records its requests, over a workspace of 2 KB files. */
function contextRuntime(home: string) {
  const requests: ModelRequest[] = [];
  const inner = createScriptedModel(script);
  const model: ModelClient = {
    id: inner.id,
    async *stream(request) {
      requests.push({ ...request, messages: [...request.messages] });
      yield* inner.stream(request);
    },
  };
  const runtime = runtimeOver(model, home);
  const tools = builtinTools({ workspace: { root: home, extraRoots: [] } });
  runtime.offerTools(tools.filter((tool) => tool.name === 'read_file'));
  installContext(runtime);
  return { runtime, requests };
}

function workspace(): string {
  const home = temporaryFolder('loom-manual-compaction-');
  for (let index = 1; index <= FILES; index++) {
    writeFileSync(join(home, `file-${index}.txt`), `file ${index}: ${'abcdefghij'.repeat(200)}\n`);
  }
  return home;
}

type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;
const toolMessages = (messages: readonly ModelMessage[]) =>
  messages.filter((message): message is ToolMessage => message.role === 'tool');
const stubbed = (messages: readonly ModelMessage[]) =>
  toolMessages(messages)
    .filter((message) => message.content === prunedStub(message.toolName, message.callId))
    .map((message) => message.callId);

const eventsOf = (events: readonly SessionEvent[], type: string) =>
  events.filter((event) => event.type === type);

test('compactLog prunes all but the last keepSteps steps, and the reloaded view carries the stubs', async () => {
  for (const keepSteps of [2, 4]) {
    const home = workspace();
    const { runtime } = contextRuntime(home);
    const handle = runtime.start();
    const sessionId = handle.log.header.sessionId;
    try {
      assert.equal((await handle.agent.prompt('read every file')).reason, 'completed');
      // Too little for an automatic compaction.
      assert.equal(eventsOf(handle.log.events, 'context/compact').length, 0);
    } finally {
      handle.close();
    }
    const log = new SessionStore(home).open(sessionId);
    let line: string;
    try {
      const result = await compactLog(log, { keepSteps });
      assert.ok(result.compacted);
      // Seven steps (six reads and the reply): the last keepSteps keep their results.
      const expected = Array.from({ length: FILES + 1 - keepSteps }, (_, i) => `call_${i + 1}`);
      assert.deepEqual([...result.event.pruned].sort(), expected);
      assert.equal(result.event.trigger, 'manual');
      assert.equal(result.event.summary, '');
      assert.ok(result.event.after < result.event.before, JSON.stringify(result.event));
      line = manualCompactionLine(result);
      log.flush();
    } finally {
      log.close();
    }
    assert.match(line, new RegExp(`^compacted: ${FILES + 1 - keepSteps} tool results pruned \\(`));
    const { events } = loadSessionFile(join(home, 'sessions', `${sessionId}.jsonl`));
    const view = compactedView(events);
    assert.equal(stubbed(view).length, FILES + 1 - keepSteps);
    assert.deepEqual(
      toolMessages(view)
        .filter((message) => !stubbed(view).includes(message.callId))
        .map((message) => message.callId),
      Array.from({ length: keepSteps - 1 }, (_, i) => `call_${FILES - keepSteps + 2 + i}`),
    );
    // The log keeps every original result.
    assert.equal(eventsOf(events, 'tool/result').length, FILES);

    // A second compaction has nothing left to prune.
    const again = new SessionStore(home).open(sessionId);
    try {
      const result = await compactLog(again, { keepSteps });
      assert.equal(result.compacted, false);
      assert.ok(!result.compacted);
      assert.equal(result.skipped.wouldBe, result.skipped.before);
      assert.match(manualCompactionLine(result), /^compaction skipped: /);
      assert.equal(eventsOf(again.events, 'context/compact-skipped').length, 1);
      assert.equal(eventsOf(again.events, 'context/compact').length, 1);
    } finally {
      again.close();
    }
  }
});

test('a live agent sends its next request with the stubs of a manual compaction', async () => {
  const { runtime, requests } = contextRuntime(workspace());
  const handle = runtime.start();
  try {
    assert.equal((await handle.agent.prompt('read every file')).reason, 'completed');
    const result = await compactLog(handle.log, { keepSteps: 3 });
    assert.ok(result.compacted);
    assert.equal((await handle.agent.prompt('again')).reason, 'completed');
    const sent = requests.at(-1)?.messages ?? [];
    assert.deepEqual(stubbed(sent).sort(), ['call_1', 'call_2', 'call_3', 'call_4']);
    assert.deepEqual(sent, compactedView(handle.log.events).slice(0, -1));
    // The request's size counts the pruning.
    const usages = eventsOf(handle.log.events, 'context/usage').map(
      (event) => (event as SessionEvent<'context/usage'>).data.tokens,
    );
    assert.ok((usages.at(-1) ?? 0) < (usages.at(-2) ?? 0), JSON.stringify(usages));
  } finally {
    handle.close();
  }
});
