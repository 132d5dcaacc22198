/**
 * Context accounting and pruning as agents live them, over a scripted model wrapped to state a
 * 16k-token window and to refuse what does not fit: a turn of 40 steps each reading a 2 KB file
 * completes with every request under the window, `recall` gives a pruned result back byte for
 * byte, the view after reloading the session is the view before, the last `keepSteps` steps are
 * never pruned, an overflow is pruned and retried once, and a compaction that cannot shrink the
 * request is logged as skipped.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compactedView } from '../../src/context/compacted-view.js';
import type { ContextSettings } from '../../src/context/contract.js';
import { installContext } from '../../src/context/install.js';
import { prunedStub } from '../../src/context/pruning.js';
import { RECALL_TOOL } from '../../src/context/recall-tool.js';
import { SUMMARY_REQUEST_START } from '../../src/context/summary-prompt.js';
import type { SessionEvent, SessionEventType } from '../../src/core/session-events.js';
import type {
  ModelClient,
  ModelMessage,
  ModelRequest,
  ModelStreamPart,
} from '../../src/llm/contract.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile, ScriptedStep } from '../../src/llm/scripted-rules.js';
import { builtinTools } from '../../src/tools/index.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const WINDOW = 16_000;
const STEPS = 40;

interface Windowed extends ModelClient {
  /** Every request the model was sent, in order. */
  readonly requests: ModelRequest[];
}

/**
 * `inner` with a stated window: a request larger than it (at four characters a token, counting
 * the tool schemas) fails as a context overflow, and so does each request whose number
 * (1-based) is in `overflowOn`.
 */
function windowed(inner: ModelClient, overflowOn: ReadonlySet<number> = new Set()): Windowed {
  const requests: ModelRequest[] = [];
  return {
    id: inner.id,
    limits: { context: WINDOW },
    requests,
    async *stream(request): AsyncIterable<ModelStreamPart> {
      requests.push({ ...request, messages: [...request.messages] });
      if (overflowOn.has(requests.length) || requestTokens(request) > WINDOW) {
        const message = 'context length exceeded';
        yield { type: 'error', error: { message, retryable: false, contextOverflow: true } };
        return;
      }
      yield* inner.stream(request);
    },
  };
}

function requestTokens(request: ModelRequest): number {
  let characters = request.system.length + JSON.stringify(request.tools).length;
  for (const message of request.messages) characters += JSON.stringify(message).length;
  return Math.ceil(characters / 4);
}

const readSteps = (count: number): ScriptedStep[] =>
  Array.from({ length: count }, (_, index) => ({
    tools: [{ name: 'read_file', arguments: { path: `file-${index + 1}.txt` } }],
  }));

/** A workspace of `count` files of 2 KB each, every one different. */
function workspace(count: number): string {
  const home = temporaryFolder('loom-context-');
  for (let index = 1; index <= count; index++) {
    const line = `file ${index}: ${'abcdefghij'.repeat(6)}\n`;
    writeFileSync(join(home, `file-${index}.txt`), line.repeat(Math.ceil(2048 / line.length)));
  }
  return home;
}

function contextRuntime(
  script: ScriptedModelFile,
  options: { settings?: Partial<ContextSettings>; overflowOn?: Set<number>; home?: string } = {},
) {
  const home = options.home ?? workspace(STEPS);
  const model = windowed(createScriptedModel(script), options.overflowOn);
  const runtime = runtimeOver(model, home);
  const tools = builtinTools({ workspace: { root: home, extraRoots: [] } });
  runtime.offerTools(tools.filter((tool) => tool.name === 'read_file'));
  installContext(runtime, options.settings);
  return { runtime, model, home };
}

function dataOf<Type extends SessionEventType>(
  events: readonly SessionEvent[],
  type: Type,
): SessionEvent<Type>['data'][] {
  return events.flatMap((event) =>
    event.type === type ? [(event as SessionEvent<Type>).data] : [],
  );
}

type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;
const isStub = (message: ToolMessage) =>
  message.content === prunedStub(message.toolName, message.callId);

/** The tool results of each step (assistant message) of a request, in order. */
function stepsOf(messages: readonly ModelMessage[]): ToolMessage[][] {
  const steps: ToolMessage[][] = [];
  for (const message of messages) {
    if (message.role === 'assistant') steps.push([]);
    else if (message.role === 'tool') steps[steps.length - 1]?.push(message);
  }
  return steps;
}

test('40 steps reading 2 KB files over a 16k window complete, every request under the window', async () => {
  const { runtime, model } = contextRuntime({
    rules: [{ when: 'read', steps: [...readSteps(STEPS), { reply: 'read them all' }] }],
  });
  const handle = runtime.start();
  try {
    const outcome = await handle.agent.prompt('read every file');
    assert.equal(outcome.reason, 'completed', JSON.stringify(outcome));
    assert.equal(outcome.steps, STEPS + 1);
    const events = handle.log.events;
    const usages = dataOf(events, 'context/usage');
    assert.equal(usages.length, STEPS + 1);
    for (const usage of usages) {
      assert.equal(usage.window, WINDOW);
      assert.ok(usage.tokens < WINDOW, `a request of ${usage.tokens} tokens`);
      assert.equal(usage.share, usage.tokens / WINDOW);
    }
    assert.equal(model.requests.length, STEPS + 1);
    for (const request of model.requests) assert.ok(requestTokens(request) <= WINDOW);
    const compactions = dataOf(events, 'context/compact');
    assert.ok(compactions.length > 0);
    for (const compaction of compactions) {
      assert.equal(compaction.trigger, 'auto');
      assert.equal(compaction.summary, '');
      assert.ok(compaction.after < compaction.before);
      assert.ok(compaction.pruned.length > 0);
    }
    // The log keeps every original result.
    const results = dataOf(events, 'tool/result');
    assert.equal(results.length, STEPS);
    for (const result of results) assert.match(result.content, /file \d+: abcdefghij/);
    const warnings = dataOf(events, 'context/warning');
    assert.equal(warnings.length, 1);
    assert.ok((warnings[0]?.share ?? 0) >= 0.7);
    // The oldest result is pruned first, its stub citing the call id.
    const last = model.requests.at(-1);
    const first = last?.messages.find((message) => message.role === 'tool');
    assert.equal(first?.role, 'tool');
    assert.equal(first.content, '[result of read_file pruned; recall "call_1" for the full text]');
  } finally {
    handle.close();
  }
});

test('recall gives back a pruned result byte for byte, and an unknown id is an error', async () => {
  const { runtime, model } = contextRuntime({
    rules: [
      {
        when: 'read',
        steps: [
          ...readSteps(30),
          { tools: [{ name: RECALL_TOOL, arguments: { id: 'call_1' } }] },
          { tools: [{ name: RECALL_TOOL, arguments: { id: 'call_999' } }] },
          { reply: 'done' },
        ],
      },
    ],
  });
  const handle = runtime.start();
  try {
    assert.equal((await handle.agent.prompt('read and recall')).reason, 'completed');
    const results = dataOf(handle.log.events, 'tool/result');
    const original = results.find((result) => result.callId === 'call_1');
    const recalled = results.find((result) => result.name === RECALL_TOOL && !result.isError);
    assert.ok(original && recalled);
    assert.ok(
      dataOf(handle.log.events, 'context/compact').some((c) => c.pruned.includes('call_1')),
    );
    assert.equal(recalled.content, original.content);
    const unknown = results.filter((result) => result.name === RECALL_TOOL).at(-1);
    assert.equal(unknown?.isError, true);
    assert.match(unknown?.content ?? '', /no tool result or summarized span with id "call_999"/);
    // The model saw the recalled text whole.
    const afterRecall = model.requests.at(-2)?.messages.at(-1);
    assert.equal(afterRecall?.role, 'tool');
    assert.equal(afterRecall.content, original.content);
  } finally {
    handle.close();
  }
});

test('the view after reloading the session is the view before, and the model was sent it', async () => {
  const home = workspace(STEPS);
  const script: ScriptedModelFile = {
    rules: [
      { when: 'read', steps: [...readSteps(STEPS), { reply: 'read them all' }] },
      { when: 'again', reply: 'still here' },
    ],
  };
  const first = contextRuntime(script, { home });
  const handle = first.runtime.start();
  const sessionId = handle.log.header.sessionId;
  let before: ModelMessage[];
  try {
    assert.equal((await handle.agent.prompt('read every file')).reason, 'completed');
    before = compactedView(handle.log.events);
    assert.ok(before.some((message) => message.role === 'tool' && isStub(message)));
    // The last request was this view, less the final answer it produced.
    assert.deepEqual(first.model.requests.at(-1)?.messages, before.slice(0, -1));
  } finally {
    handle.close();
  }
  const second = contextRuntime(script, { home });
  const resumed = second.runtime.resume(sessionId);
  try {
    assert.deepEqual(compactedView(resumed.log.events), before);
    assert.equal((await resumed.agent.prompt('again')).reason, 'completed');
    const sent = second.model.requests[0]?.messages ?? [];
    assert.deepEqual(sent.slice(0, before.length), before);
  } finally {
    resumed.close();
  }
});

test('the tool results of the last keepSteps steps are never pruned, even inside one turn', async () => {
  for (const keepSteps of [3, 6]) {
    const { runtime, model } = contextRuntime(
      { rules: [{ when: 'read', steps: [...readSteps(STEPS), { reply: 'done' }] }] },
      { settings: { keepSteps } },
    );
    const handle = runtime.start();
    try {
      assert.equal((await handle.agent.prompt('read every file')).reason, 'completed');
      let stubbed = 0;
      for (const request of model.requests) {
        const steps = stepsOf(request.messages);
        for (const results of steps.slice(-keepSteps)) {
          for (const result of results) assert.ok(!isStub(result), `keepSteps ${keepSteps}`);
        }
        stubbed += steps.flat().filter(isStub).length;
      }
      assert.ok(stubbed > 0);
      const lastSteps = stepsOf(model.requests.at(-1)?.messages ?? []);
      // Pruning went as far back as needed and no further: a pruned step is older than a kept one.
      const firstKept = lastSteps.findIndex((results) =>
        results.every((result) => !isStub(result)),
      );
      assert.ok(firstKept > 0);
      for (const results of lastSteps.slice(firstKept)) assert.ok(!results.some(isStub));
    } finally {
      handle.close();
    }
  }
});

test('a request refused as too large is compacted and retried once; a second refusal ends the turn', async () => {
  const script: ScriptedModelFile = {
    rules: [
      {
        when: `^${SUMMARY_REQUEST_START}`,
        reply: 'The user asked to read the files.',
        usage: { input: 5000, output: 300 },
      },
      { when: 'read', steps: [...readSteps(8), { reply: 'done' }] },
    ],
  };
  const once = contextRuntime(script, { overflowOn: new Set([6]) });
  const handle = once.runtime.start();
  try {
    const outcome = await handle.agent.prompt('read');
    assert.equal(outcome.reason, 'completed', JSON.stringify(outcome));
    const events = handle.log.events;
    const [compaction, ...more] = dataOf(events, 'context/compact');
    assert.equal(more.length, 0);
    assert.equal(compaction?.trigger, 'overflow');
    assert.ok(compaction.before >= WINDOW);
    // Pruning the two prunable results would not bring a full window under compactAt, so the
    // steps before the last three were summarized instead (one request of its own, the 7th);
    // the two results are inside the summarized span, so nothing is listed as pruned.
    assert.deepEqual(compaction.pruned, []);
    assert.equal(compaction.summarized?.steps, 2);
    assert.equal(dataOf(events, 'model/retry').length, 1);
    assert.equal(once.model.requests.length, 11);
    assert.match(
      JSON.stringify(once.model.requests[6]?.messages[0]),
      new RegExp(`^\\{"role":"user","content":"${SUMMARY_REQUEST_START}`),
    );
    const retried = once.model.requests[7];
    assert.ok(retried);
    assert.equal(retried.messages[0]?.role, 'user');
    assert.deepEqual(retried.messages[0], {
      role: 'user',
      content: compaction.summary,
      compaction: { kind: 'summary', openTurn: { prompt: 'read', steps: 2 } },
    });
    assert.match(compaction.summary, /The user asked to read the files\./);
    assert.equal(stepsOf(retried.messages).length, 3);
    // The summary request's tokens are the turn's, logged once as a side request.
    const [side, ...moreSides] = dataOf(events, 'model/side-request');
    assert.equal(moreSides.length, 0);
    assert.deepEqual(side, {
      purpose: 'summary',
      model: once.model.id,
      usage: { input: 5000, output: 300 },
      turnId: outcome.turnId,
    });
    const steps = dataOf(events, 'assistant/message').reduce(
      (sum, message) => sum + message.usage.input,
      0,
    );
    assert.equal(outcome.usage.input, steps + 5000);
    assert.deepEqual(dataOf(events, 'turn/end')[0]?.usage, outcome.usage);
  } finally {
    handle.close();
  }

  const twice = contextRuntime(script, { overflowOn: new Set([6, 8]) });
  const failing = twice.runtime.start();
  try {
    const outcome = await failing.agent.prompt('read');
    assert.equal(outcome.reason, 'error');
    assert.equal(outcome.error.code, 'PROVIDER_ERROR');
    assert.match(outcome.error.message, /context length exceeded/);
    assert.equal(twice.model.requests.length, 8);
    assert.equal(dataOf(failing.log.events, 'model/retry').length, 1);
  } finally {
    failing.close();
  }
});

test('a compaction that would not shrink the request is logged as skipped', async () => {
  const { runtime, model } = contextRuntime(
    { rules: [{ when: 'read', steps: [...readSteps(2), { reply: 'done' }] }] },
    { home: workspace(2) },
  );
  const handle = runtime.start();
  try {
    // 52k characters: past compactAt from the first request, with nothing old enough to prune.
    const outcome = await handle.agent.prompt(`read ${'x'.repeat(52_000)}`);
    assert.equal(outcome.reason, 'completed', JSON.stringify(outcome));
    const events = handle.log.events;
    assert.equal(dataOf(events, 'context/compact').length, 0);
    const skipped = dataOf(events, 'context/compact-skipped');
    assert.equal(skipped.length, model.requests.length);
    for (const skip of skipped) {
      assert.ok(skip.before > 0.8 * WINDOW);
      assert.ok(skip.wouldBe >= skip.before);
    }
  } finally {
    handle.close();
  }
});
