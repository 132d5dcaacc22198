import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import { attachStructuredOutput } from '../../src/subagent/structured-output/capture.js';
import { assertSessionInvariants } from '../../src/testing/invariants.js';
import { deferred } from '../helpers/deferred.js';
import { codeModeFixture, runCodeModel } from './code-mode-fixture.js';

type ResultData = SessionEvent<'tool/result'>['data'];

const echo: ToolDefinition = {
  name: 'echo',
  description: 'Echoes its text.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  concurrencySafe: true,
  execute: (args: { text: string }) => `echo: ${args.text}`,
};

function programResult(events: readonly SessionEvent[]): ResultData | undefined {
  return events
    .filter((event) => event.type === 'tool/result')
    .map((event) => event.data as ResultData)
    .find((data) => data.name === 'run_code');
}

test('a program past its time or memory limit is an error result naming the limit; its inner calls are paired', async () => {
  const cases = [
    {
      code: "await tools.echo({ text: 'before' });\nfor (;;) {}",
      errorCode: 'CODE_TIMEOUT',
      pattern: /300 ms/,
      limits: { timeoutMs: 300 },
    },
    {
      code: "await tools.echo({ text: 'before' });\nconst hoard = [];\nfor (;;) hoard.push('x'.repeat(1000) + hoard.length);",
      errorCode: 'CODE_MEMORY',
      pattern: /16 MB/,
      limits: { memoryMb: 16 },
    },
  ];
  for (const { code, errorCode, pattern, limits } of cases) {
    const fixture = codeModeFixture({
      model: runCodeModel(code),
      presentation: 'code',
      tools: [echo],
      limits,
    });
    const outcome = await fixture.handle.agent.prompt('go');
    assert.equal(outcome.reason, 'completed');
    const result = programResult(fixture.handle.log.events);
    assert.equal(result?.isError, true);
    assert.equal(result?.errorCode, errorCode, result?.content);
    assert.match(result?.content ?? '', pattern);
    assertSessionInvariants(fixture.handle.log.events);
    await fixture.close();
  }
});

test('cancel stops a program that spins after an inner call; the turn ends aborted, every call paired', async () => {
  const fixture = codeModeFixture({
    model: runCodeModel("await tools.echo({ text: 'first' });\nfor (;;) {}"),
    presentation: 'code',
    tools: [echo],
  });
  const echoed = deferred();
  fixture.handle.log.onAppend((event) => {
    if (event.type === 'tool/result' && (event.data as ResultData).name === 'echo') {
      echoed.resolve();
    }
  });
  const turn = fixture.handle.agent.prompt('go');
  await echoed.promise;
  fixture.handle.agent.cancel('stop');
  const outcome = await turn;
  assert.equal(outcome.reason, 'aborted');
  assert.equal(programResult(fixture.handle.log.events)?.errorCode, 'ABORTED');
  assertSessionInvariants(fixture.handle.log.events);
  await fixture.close();
});

test('a scripted answer whose schema travels in value reaches a code-mode agent wrapped', async () => {
  const fixture = codeModeFixture({
    model: { default: { output: ['a.ts', null] } },
    presentation: 'code',
  });
  const capture = attachStructuredOutput(fixture.handle, {
    type: 'array',
    items: { type: ['string', 'null'] },
  });
  const outcome = await fixture.handle.agent.prompt('list');
  assert.equal(outcome.reason, 'completed');
  assert.deepEqual(capture.outcome(), { kind: 'captured', value: ['a.ts', null] });
  await fixture.close();
});

test('a scripted structured answer reaches a code-mode agent through a run_code program', async () => {
  const fixture = codeModeFixture({
    model: { default: { output: { verdict: 'fine' } } },
    presentation: 'code',
  });
  const capture = attachStructuredOutput(fixture.handle, {
    type: 'object',
    properties: { verdict: { type: 'string' } },
    required: ['verdict'],
    additionalProperties: false,
  });
  const outcome = await fixture.handle.agent.prompt('judge');
  assert.equal(outcome.reason, 'completed');
  assert.deepEqual(capture.outcome(), { kind: 'captured', value: { verdict: 'fine' } });
  const inner = fixture.handle.log.events
    .filter((event) => event.type === 'tool/result')
    .map((event) => event.data as ResultData)
    .filter((data) => data.parentCallId !== undefined);
  assert.deepEqual(
    inner.map((data) => [data.name, data.isError]),
    [['structured_output', false]],
  );
  await fixture.close();
});
