import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Context } from '../../src/core/context.js';
import { AgentRuntime } from '../../src/core/runtime.js';
import type { ModelClient } from '../../src/llm/contract.js';
import { installSubagents } from '../../src/subagent/install.js';
import { createScriptedModel } from '../../src/testing/scripted-model.js';
import { WorkerWorkflowService } from '../../src/workflow/host.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { pairViolations, recordEvents, testMeta } from './engine-fixture.js';

/** The scripted model, noting the system prompt each request was sent with, by user message. */
function recordingScriptedModel() {
  const inner = createScriptedModel(
    {
      rules: [
        { when: '^summarise (.*)$', reply: 'summary of {{1}}' },
        { when: '^rate (.*)$', output: { score: 4, item: '{{1}}' } },
        { when: '^fail', error: 'the model is down' },
      ],
    },
    { name: 'workflow' },
  );
  const systems = new Map<string, string>();
  const model: ModelClient = {
    id: inner.id,
    stream(request) {
      const last = [...request.messages].reverse().find((message) => message.role === 'user');
      if (last && typeof last.content === 'string') systems.set(last.content, request.system);
      return inner.stream(request);
    },
  };
  return { model, systems };
}

test('a workflow runs real in-process children over the scripted model', async () => {
  const { model, systems } = recordingScriptedModel();
  const home = temporaryFolder('loom-workflow-');
  const root = new Context();
  const runtime = new AgentRuntime({ root, home, cwd: home, resolveModel: () => model });
  const layer = installSubagents(runtime);
  const events = recordEvents(root);
  const service = new WorkerWorkflowService({
    context: root,
    registry: layer.services.registry,
    limits: { maxConcurrentAgents: 3 },
  });
  try {
    const run = service.start({
      meta: testMeta,
      parent: { sessionId: null, delegationDepth: 0 },
      script: `
        phase('Work');
        const [summary, rating, failed] = await parallel([
          () => agent('summarise the readme'),
          () => agent('rate the readme', { label: 'rate', schema: {
            type: 'object',
            properties: { score: { type: 'integer' }, item: { type: 'string' } },
            required: ['score', 'item'],
          } }),
          () => agent('fail please'),
        ]);
        return { summary, rating, failed };`,
    });
    const result = await run.result;
    assert.equal(result.stopReason, 'completed', JSON.stringify(result.error));
    assert.deepEqual(result.value, {
      summary: 'summary of the readme',
      rating: { score: 4, item: 'the readme' },
      failed: null,
    });
    assert.equal(result.agentsStarted, 3);
    assert.deepEqual(
      result.failures.map((failure) => [failure.seq, failure.outcome]),
      [[3, 'failed']],
    );
    assert.match(result.failures[0]?.reason ?? '', /the model is down/);
    assert.ok(result.usage.input > 0);
    assert.match(systems.get('summarise the readme') ?? '', /returned verbatim to the script/);
    assert.match(systems.get('rate the readme') ?? '', /structured_output tool exactly once/);
    assert.deepEqual(pairViolations(events.records), []);
    assert.deepEqual(
      events
        .of('workflow/agent-end')
        .map((event) => [event.label, event.outcome])
        .sort(),
      [
        ['fail please', 'failed'],
        ['rate', 'completed'],
        ['summarise the readme', 'completed'],
      ],
    );
    assert.equal(runtime.liveAgents.length, 0, 'one-shot children are closed');
    assert.equal(service.liveWorkers, 0);
  } finally {
    events.dispose();
    layer.dispose();
  }
});
