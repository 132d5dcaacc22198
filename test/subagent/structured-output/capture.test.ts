import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toolPostExecute, toolPreExecute } from '../../../src/core/tool-pipeline.js';
import { SubagentError } from '../../../src/subagent/contract.js';
import {
  attachStructuredOutput,
  STRUCTURED_OUTPUT_TOOL,
} from '../../../src/subagent/structured-output/capture.js';
import { checkSessionInvariants } from '../../../src/testing/invariants.js';
import { countingEcho, structuredAgent, toolResults } from './capture-fixture.js';

const reportSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, score: { type: 'integer' } },
  required: ['name'],
  additionalProperties: false,
};

test('a valid capture commits and the turn ends with no extra model step', async () => {
  const handle = structuredAgent({ rules: [{ when: 'report', output: { name: 'ok', score: 3 } }] });
  const capture = attachStructuredOutput(handle, reportSchema);
  const outcome = await handle.agent.prompt('report please');
  handle.close();
  assert.equal(outcome.reason, 'completed');
  assert.equal(outcome.steps, 1);
  assert.equal(handle.model.calls.length, 1);
  assert.deepEqual(capture.outcome(), { kind: 'captured', value: { name: 'ok', score: 3 } });
  const offered = handle.model.calls[0]?.tools.find((tool) => tool.name === STRUCTURED_OUTPUT_TOOL);
  assert.deepEqual(offered?.parameters, reportSchema);
  assert.match(
    handle.model.calls[0]?.system ?? '',
    /calling the structured_output tool exactly once/,
  );
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
});

test('a non-object answer travels in a value wrapper and is unwrapped when captured; the scripted output is the answer itself', async () => {
  const handle = structuredAgent({ rules: [{ when: '.*', output: ['a', 'b'] }] });
  const schema = { type: 'array', items: { type: 'string' } };
  const capture = attachStructuredOutput(handle, schema);
  const outcome = await handle.agent.prompt('list');
  handle.close();
  assert.equal(outcome.reason, 'completed');
  assert.deepEqual(capture.outcome(), { kind: 'captured', value: ['a', 'b'] });
  const offered = handle.model.calls[0]?.tools.find((tool) => tool.name === STRUCTURED_OUTPUT_TOOL);
  assert.deepEqual(offered?.parameters, {
    type: 'object',
    properties: { value: schema },
    required: ['value'],
    additionalProperties: false,
  });
  assert.match(offered?.description ?? '', /^Delivers your final answer in the `value` argument/);
  const calls = handle.log.events.filter((event) => event.type === 'tool/call');
  assert.deepEqual(
    calls.map((event) => (event.data as { arguments: unknown }).arguments),
    [{ value: ['a', 'b'] }],
  );
});

test('an invalid value then a valid one in the same turn succeeds', async () => {
  const handle = structuredAgent({
    rules: [
      {
        when: 'report',
        steps: [
          { tools: [{ name: STRUCTURED_OUTPUT_TOOL, arguments: { name: 42 } }] },
          { output: { name: 'fixed' } },
        ],
      },
    ],
  });
  const capture = attachStructuredOutput(handle, reportSchema);
  const outcome = await handle.agent.prompt('report');
  handle.close();
  assert.equal(outcome.reason, 'completed');
  assert.equal(outcome.steps, 2);
  assert.equal(handle.model.calls.length, 2);
  assert.deepEqual(capture.outcome(), { kind: 'captured', value: { name: 'fixed' } });
  const [rejected, accepted] = toolResults(handle.log.events);
  assert.equal(rejected?.errorCode, 'TOOL_ARGUMENTS');
  assert.match(rejected?.content ?? '', /arguments\.name: must be string/);
  assert.equal(accepted?.isError, false);
});

test('five invalid attempts exhaust the capture and end the turn with an error', async () => {
  const handle = structuredAgent({
    rules: [{ when: '.*', tools: [{ name: STRUCTURED_OUTPUT_TOOL, arguments: { score: 'x' } }] }],
  });
  const capture = attachStructuredOutput(handle, reportSchema);
  const outcome = await handle.agent.prompt('report');
  handle.close();
  assert.equal(outcome.reason, 'error');
  assert.equal(outcome.error?.code, 'INVALID_STRUCTURED_OUTPUT');
  assert.match(outcome.error?.message ?? '', /invalid arguments 5 times/);
  assert.match(outcome.error?.message ?? '', /arguments\.score: must be integer/);
  assert.equal(outcome.steps, 5);
  assert.equal(handle.model.calls.length, 5);
  const result = capture.outcome();
  assert.equal(result.kind, 'exhausted');
  assert.match(
    result.kind === 'exhausted' ? result.problems : '',
    /must have required property 'name'/,
  );
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
});

test('maxAttempts bounds the retries', async () => {
  const handle = structuredAgent({
    rules: [{ when: '.*', tools: [{ name: STRUCTURED_OUTPUT_TOOL, arguments: {} }] }],
  });
  attachStructuredOutput(handle, reportSchema, { maxAttempts: 2 });
  const outcome = await handle.agent.prompt('report');
  handle.close();
  assert.equal(outcome.reason, 'error');
  assert.equal(outcome.error.code, 'INVALID_STRUCTURED_OUTPUT');
  assert.equal(outcome.steps, 2);
});

test('finishing with plain text is the error NO_STRUCTURED_OUTPUT', async () => {
  const handle = structuredAgent({ rules: [{ when: '.*', reply: 'here is my answer' }] });
  const capture = attachStructuredOutput(handle, reportSchema);
  const outcome = await handle.agent.prompt('report');
  handle.close();
  assert.equal(outcome.reason, 'error');
  assert.deepEqual(outcome.error, {
    code: 'NO_STRUCTURED_OUTPUT',
    message: 'the child finished without calling structured_output',
  });
  assert.deepEqual(capture.outcome(), { kind: 'missing' });
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
});

const captureThenMore = {
  rules: [
    {
      when: '.*',
      tools: [
        { name: STRUCTURED_OUTPUT_TOOL, arguments: { name: 'first' } },
        { name: 'echo', arguments: { text: 'side effect' } },
        { name: STRUCTURED_OUTPUT_TOOL, arguments: { name: 'second' } },
      ],
    },
  ],
};

test('tool calls after the capture in the same step are denied', async () => {
  const echo = countingEcho();
  const handle = structuredAgent(captureThenMore, { tools: [echo] });
  const capture = attachStructuredOutput(handle, reportSchema);
  const outcome = await handle.agent.prompt('report');
  handle.close();
  assert.equal(outcome.reason, 'completed');
  assert.equal(handle.model.calls.length, 1);
  assert.equal(echo.runs, 0);
  const results = toolResults(handle.log.events);
  assert.deepEqual(
    results.map((result) => [result.isError, result.errorCode]),
    [
      [false, undefined],
      [true, 'TOOL_DENIED'],
      [true, 'TOOL_DENIED'],
    ],
  );
  assert.match(results[1]?.content ?? '', /structured output was already delivered/);
  assert.deepEqual(capture.outcome(), { kind: 'captured', value: { name: 'first' } });
});

test('a pre-execute listener that force-allows cannot bypass the guard', async () => {
  const echo = countingEcho();
  const handle = structuredAgent(captureThenMore, { tools: [echo] });
  handle.context.use(toolPreExecute, () => ({ action: 'allow' }));
  const capture = attachStructuredOutput(handle, reportSchema);
  await handle.agent.prompt('report');
  handle.close();
  assert.equal(echo.runs, 0);
  assert.deepEqual(
    toolResults(handle.log.events).map((result) => result.errorCode),
    [undefined, 'TOOL_DENIED', 'TOOL_DENIED'],
  );
  assert.deepEqual(capture.outcome(), { kind: 'captured', value: { name: 'first' } });
});

test('a post-execute failure on the capture call does not commit', async () => {
  const handle = structuredAgent({ rules: [{ when: '.*', output: { name: 'ok' } }] });
  handle.context.use(toolPostExecute, async (observation, next) => {
    const result = await next(observation);
    if (observation.execution.name === STRUCTURED_OUTPUT_TOOL) throw new Error('audit failed');
    return result;
  });
  const capture = attachStructuredOutput(handle, reportSchema);
  const outcome = await handle.agent.prompt('report');
  handle.close();
  assert.deepEqual(capture.outcome(), { kind: 'missing' });
  assert.equal(outcome.reason, 'error');
  assert.equal(outcome.error?.code, 'NO_STRUCTURED_OUTPUT');
  assert.match(outcome.error?.message ?? '', /call failed.*audit failed/);
  assert.equal(handle.model.calls.length, 1);
});

test('a post-execute policy that turns the result into an error does not commit', async () => {
  const handle = structuredAgent({ rules: [{ when: '.*', output: { name: 'ok' } }] });
  handle.context.use(toolPostExecute, ({ result }) => ({
    ...result,
    isError: true,
    content: 'blocked by policy',
  }));
  const capture = attachStructuredOutput(handle, reportSchema);
  const outcome = await handle.agent.prompt('report');
  handle.close();
  assert.deepEqual(capture.outcome(), { kind: 'missing' });
  assert.equal(outcome.reason, 'error');
  assert.match(outcome.error.message, /blocked by policy/);
});

test('a pre-execute rewrite to an invalid value is caught by the body and counted', async () => {
  const handle = structuredAgent({
    rules: [{ when: '.*', steps: [{ output: { name: 'ok' } }, { output: { name: 'again' } }] }],
  });
  let rewrites = 1;
  handle.context.use(toolPreExecute, (request, next) =>
    rewrites-- > 0 ? next({ ...request, arguments: { name: 7 } }) : next(request),
  );
  const capture = attachStructuredOutput(handle, reportSchema);
  const outcome = await handle.agent.prompt('report');
  handle.close();
  assert.equal(outcome.reason, 'completed');
  const [first] = toolResults(handle.log.events);
  assert.equal(first?.errorCode, 'TOOL_ARGUMENTS');
  assert.deepEqual(capture.outcome(), { kind: 'captured', value: { name: 'again' } });
});

test('attaching checks the schema and options before registering anything', () => {
  const handle = structuredAgent({ rules: [] });
  assert.throws(
    () =>
      attachStructuredOutput(handle, {
        type: 'object',
        properties: { a: { $ref: '#/$defs/gone' } },
      }),
    (error: unknown) => error instanceof SubagentError && error.code === 'UNSUPPORTED_SCHEMA',
  );
  assert.throws(() => attachStructuredOutput(handle, reportSchema, { maxAttempts: 0 }), {
    code: 'INVALID_ARGUMENT',
  });
  assert.equal(handle.tools.lookup(STRUCTURED_OUTPUT_TOOL), undefined);
  handle.close();
});

test('an attach that fails midway leaves nothing registered', async () => {
  const handle = structuredAgent({ rules: [{ when: '.*', reply: 'plain' }] });
  const taken = handle.prompt.section({ id: 'structured-output', order: 1, text: 'taken' });
  assert.throws(() => attachStructuredOutput(handle, reportSchema), { code: 'INVALID_ARGUMENT' });
  taken();
  assert.equal(handle.tools.lookup(STRUCTURED_OUTPUT_TOOL), undefined);
  const outcome = await handle.agent.prompt('go');
  handle.close();
  assert.equal(outcome.reason, 'completed');
});
