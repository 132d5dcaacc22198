import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Context } from '../../src/core/context.js';
import { AgentRuntime } from '../../src/core/runtime.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import { installSubagents } from '../../src/subagent/install.js';
import { WorkerWorkflowService } from '../../src/workflow/host.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { pairViolations, recordEvents, testEngine, testMeta } from './engine-fixture.js';

const model = () =>
  createScriptedModel(
    {
      rules: [
        { when: '^summarise (.*)$', reply: 'summary of {{1}}' },
        { when: '^rate (.*)$', output: { score: 4, item: '{{1}}' } },
        { when: '^fail', error: 'the model is down' },
      ],
    },
    { name: 'workflow' },
  );

test('a workflow runs real in-process children over the scripted model', async () => {
  const recording = model();
  const systemOf = (prompt: string) =>
    recording.calls.find((call) => call.prompt === prompt)?.system ?? '';
  const home = temporaryFolder('loom-workflow-');
  const root = new Context();
  const runtime = new AgentRuntime({ root, home, cwd: home, resolveModel: () => recording });
  const layer = installSubagents(runtime);
  const events = recordEvents(root);
  const service = new WorkerWorkflowService({
    context: root,
    registry: layer.services.registry,
    limits: { maxConcurrentAgents: 3 },
    engine: testEngine,
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
    assert.match(systemOf('summarise the readme'), /returned verbatim to the script/);
    assert.match(systemOf('rate the readme'), /structured_output tool exactly once/);
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
