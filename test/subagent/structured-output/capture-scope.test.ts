import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Context } from '../../../src/core/context.js';
import { promptAssemble } from '../../../src/core/system-prompt.js';
import {
  attachStructuredOutput,
  STRUCTURED_OUTPUT_SECTION,
  STRUCTURED_OUTPUT_TOOL,
} from '../../../src/subagent/structured-output/capture.js';
import { countingEcho, structuredAgent, toolResults } from './capture-fixture.js';

const structuredTools = <Tool extends { name: string }>(tools: Tool[]) =>
  tools.filter((tool) => tool.name === STRUCTURED_OUTPUT_TOOL);

test('two agents under one root each see only their own capture tool and value', async () => {
  const root = new Context();
  const first = structuredAgent({ rules: [{ when: '.*', output: { title: 'one' } }] }, { root });
  const second = structuredAgent({ rules: [{ when: '.*', output: 2 }] }, { root });
  const firstSchema = { type: 'object', properties: { title: { type: 'string' } } };
  const secondSchema = { type: 'integer' };
  const firstCapture = attachStructuredOutput(first, firstSchema);
  const secondCapture = attachStructuredOutput(second, secondSchema);
  const outcomes = await Promise.all([first.agent.prompt('go'), second.agent.prompt('go')]);
  first.close();
  second.close();
  assert.deepEqual(
    outcomes.map((outcome) => outcome.reason),
    ['completed', 'completed'],
  );
  assert.deepEqual(firstCapture.outcome(), { kind: 'captured', value: { title: 'one' } });
  assert.deepEqual(secondCapture.outcome(), { kind: 'captured', value: 2 });
  const [firstOffered] = first.model.calls.map((request) => structuredTools(request.tools));
  const [secondOffered] = second.model.calls.map((request) => structuredTools(request.tools));
  assert.equal(firstOffered?.length, 1);
  assert.equal(secondOffered?.length, 1);
  assert.deepEqual(firstOffered?.[0]?.parameters, firstSchema);
  assert.deepEqual(secondOffered?.[0]?.parameters.properties, { value: secondSchema });
});

test('caller mutation of the schema after attaching does not change enforcement', async () => {
  const handle = structuredAgent({ rules: [{ when: '.*', output: { name: 'text' } }] });
  const schema = { type: 'object', properties: { name: { type: 'string' } } };
  const capture = attachStructuredOutput(handle, schema);
  schema.properties.name.type = 'number';
  await handle.agent.prompt('go');
  handle.close();
  assert.deepEqual(capture.outcome(), { kind: 'captured', value: { name: 'text' } });
});

test('a prompt listener cannot drop or alter the capture section or tool', async () => {
  const handle = structuredAgent({ rules: [{ when: '.*', output: { name: 'ok' } }] });
  const capture = attachStructuredOutput(handle, { type: 'object' });
  handle.context.use(promptAssemble, async (draft, next) => {
    const edited = await next(draft);
    return {
      sections: edited.sections.filter((section) => section.id !== STRUCTURED_OUTPUT_SECTION),
      tools: [
        ...edited.tools.filter((tool) => tool.name !== STRUCTURED_OUTPUT_TOOL),
        { name: STRUCTURED_OUTPUT_TOOL, description: 'forged', parameters: { type: 'object' } },
        { name: STRUCTURED_OUTPUT_TOOL, description: 'forged twice', parameters: {} },
      ],
    };
  });
  const assembled = await handle.prompt.assemble(handle.tools.specs());
  assert.ok(assembled.sections.some((section) => section.id === STRUCTURED_OUTPUT_SECTION));
  const offered = structuredTools(assembled.tools);
  assert.equal(offered.length, 1);
  assert.match(offered[0]?.description ?? '', /Delivers your final answer/);
  await handle.agent.prompt('go');
  handle.close();
  assert.match(handle.model.calls[0]?.system ?? '', /structured_output tool exactly once/);
  assert.deepEqual(capture.outcome(), { kind: 'captured', value: { name: 'ok' } });
});

test('dispose removes the tool, guard, listener, section, protection and turn rule', async () => {
  const echo = countingEcho();
  const handle = structuredAgent(
    {
      rules: [
        { when: 'first', output: { name: 'ok' } },
        {
          when: 'second',
          steps: [{ tools: [{ name: 'echo', arguments: { text: 'after' } }] }, { reply: 'done' }],
        },
      ],
    },
    { tools: [echo] },
  );
  const capture = attachStructuredOutput(handle, { type: 'object' });
  await handle.agent.prompt('first');
  assert.equal(capture.outcome().kind, 'captured');
  capture.dispose();
  capture.dispose();
  assert.equal(handle.tools.lookup(STRUCTURED_OUTPUT_TOOL), undefined);
  const injected = { name: STRUCTURED_OUTPUT_TOOL, description: 'now anyone may', parameters: {} };
  handle.context.use(promptAssemble, (draft) => ({ ...draft, tools: [...draft.tools, injected] }));
  const assembled = await handle.prompt.assemble(handle.tools.specs());
  assert.ok(!assembled.sections.some((section) => section.id === STRUCTURED_OUTPUT_SECTION));
  assert.deepEqual(structuredTools(assembled.tools), [injected]);
  const outcome = await handle.agent.prompt('second');
  assert.equal(outcome.reason, 'completed');
  assert.equal(echo.runs, 1);
  assert.equal(toolResults(handle.log.events).at(-1)?.isError, false);
  assert.deepEqual(capture.outcome(), { kind: 'captured', value: { name: 'ok' } });
  const again = attachStructuredOutput(handle, { type: 'string' });
  assert.ok(handle.tools.lookup(STRUCTURED_OUTPUT_TOOL));
  handle.close();
  assert.equal(handle.tools.lookup(STRUCTURED_OUTPUT_TOOL), undefined);
  assert.deepEqual(again.outcome(), { kind: 'missing' });
});

test('after dispose, neither the result listener nor the turn rule acts', async () => {
  const handle = structuredAgent({
    rules: [
      {
        when: '.*',
        steps: [{ tools: [{ name: STRUCTURED_OUTPUT_TOOL, arguments: {} }] }, { reply: 'plain' }],
      },
    ],
  });
  const capture = attachStructuredOutput(handle, { type: 'object' }, { maxAttempts: 1 });
  capture.dispose();
  handle.tools.register({
    name: STRUCTURED_OUTPUT_TOOL,
    description: 'an unrelated tool that reuses the name',
    parameters: { type: 'object', required: ['name'] },
    execute: () => 'ok',
  });
  const outcome = await handle.agent.prompt('go');
  handle.close();
  assert.equal(outcome.reason, 'completed');
  assert.equal(outcome.steps, 2);
  assert.equal(toolResults(handle.log.events)[0]?.errorCode, 'TOOL_ARGUMENTS');
  assert.deepEqual(capture.outcome(), { kind: 'missing' });
});
