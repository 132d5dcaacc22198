import assert from 'node:assert/strict';
import { test } from 'node:test';
import { installPermissionRules } from '../../src/config/permissions.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { promptAssemble } from '../../src/core/system-prompt.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import { type PermissionAsker, permissionAskerKey } from '../../src/core/tool-execution.js';
import { toolsAvailable } from '../../src/core/tool-presentation.js';
import { attachStructuredOutput } from '../../src/subagent/structured-output/capture.js';
import { assertSessionInvariants } from '../../src/testing/invariants.js';
import { deferred } from '../helpers/deferred.js';
import { codeModeFixture, functionRunner, runCodeModel } from './code-mode-fixture.js';

const noArguments = { type: 'object', properties: {}, additionalProperties: false };

function tool(
  name: string,
  execute: ToolDefinition['execute'],
  extra: Partial<ToolDefinition> = {},
): ToolDefinition {
  return { name, description: `The ${name} tool.`, parameters: noArguments, execute, ...extra };
}

type Data<Type extends SessionEvent['type']> = SessionEvent<Type>['data'];

function toolEvents(events: readonly SessionEvent[]) {
  return events
    .filter((event) => event.type === 'tool/call' || event.type === 'tool/result')
    .map((event) => {
      const data = event.data as Data<'tool/result'>;
      return `${event.type === 'tool/call' ? 'call' : 'result'} ${data.callId} ${data.name}${data.parentCallId ? ` in ${data.parentCallId}` : ''}${event.type === 'tool/result' && data.isError ? ` error ${data.errorCode}` : ''}`;
    });
}

function firstCallId(events: readonly SessionEvent[]): string {
  const call = events.find((event) => event.type === 'tool/call');
  assert.ok(call, 'no tool/call was logged');
  return (call.data as Data<'tool/call'>).callId;
}

const sdkSectionPattern = /# Tools as code[\s\S]*```ts\n([\s\S]*?)```/;

test('code mode offers run_code alone and describes the other tools in the tools:sdk section', async () => {
  const echo = tool('echo', () => 'echoed', { description: 'Echoes a fixed word.' });
  for (const presentation of ['code', 'both', 'native'] as const) {
    const fixture = codeModeFixture({
      model: { default: { reply: 'hi' } },
      presentation,
      tools: [echo],
      runner: functionRunner({}),
    });
    const outcome = await fixture.handle.agent.prompt('hello');
    assert.equal(outcome.reason, 'completed');
    const request = fixture.model.calls[0];
    assert.ok(request);
    const offered = request.tools.map((spec) => spec.name);
    const sdk = sdkSectionPattern.exec(request.system)?.[1];
    if (presentation === 'native') {
      assert.deepEqual(offered, ['echo']);
      assert.equal(sdk, undefined);
    } else {
      assert.deepEqual(offered, presentation === 'code' ? ['run_code'] : ['echo', 'run_code']);
      assert.ok(sdk, request.system);
      assert.match(sdk, /Echoes a fixed word\./);
      assert.match(sdk, /echo\(/);
      assert.doesNotMatch(sdk, /run_code\(/);
    }
    await fixture.close();
  }
});

test('inner calls pass the pipeline, are logged under their run_code call and commit in call order', async () => {
  const fastDone = deferred();
  const finished: string[] = [];
  const slow = tool(
    'slow',
    async () => {
      await fastDone.promise;
      finished.push('slow');
      return 'slow answer';
    },
    { concurrencySafe: true },
  );
  const fast = tool(
    'fast',
    () => {
      finished.push('fast');
      fastDone.resolve();
      return 'fast answer';
    },
    { concurrencySafe: true },
  );
  const runner = functionRunner({
    both: async ({ tools }) => Promise.all([tools.slow?.({}), tools.fast?.({})]),
  });
  const fixture = codeModeFixture({
    model: runCodeModel('both'),
    presentation: 'code',
    tools: [slow, fast],
    runner,
  });
  const outcome = await fixture.handle.agent.prompt('go');
  assert.equal(outcome.reason, 'completed');
  assert.deepEqual(finished, ['fast', 'slow']);
  const events = fixture.handle.log.events;
  const callId = firstCallId(events);
  assert.deepEqual(toolEvents(events), [
    `call ${callId} run_code`,
    `call ${callId}.1 slow in ${callId}`,
    `call ${callId}.2 fast in ${callId}`,
    `result ${callId}.1 slow in ${callId}`,
    `result ${callId}.2 fast in ${callId}`,
    `result ${callId} run_code`,
  ]);
  assert.equal(outcome.text, 'done: ["slow answer","fast answer"]');
  // The model sees the run_code call and its result only.
  const second = fixture.model.calls[1];
  assert.deepEqual(
    second?.messages.filter((message) => message.role === 'tool').map((message) => message.callId),
    [callId],
  );
  assertSessionInvariants(events);
  await fixture.close();
});

test('inner calls of tools that are not concurrency-safe run alone, in call order', async () => {
  const running = new Set<string>();
  const overlaps: string[] = [];
  const track = (name: string, safe: boolean) =>
    tool(
      name,
      async (_args, execution) => {
        const label = `${name}#${execution.callId}`;
        if (!safe && running.size > 0) overlaps.push(`${label} with ${[...running].join(',')}`);
        for (const other of running) {
          if (!other.startsWith('read')) overlaps.push(`${label} with ${other}`);
        }
        running.add(label);
        await new Promise((resolve) => setImmediate(resolve));
        running.delete(label);
        return label;
      },
      { concurrencySafe: safe },
    );
  const runner = functionRunner({
    mixed: async ({ tools }) =>
      Promise.all([tools.read?.({}), tools.read?.({}), tools.write?.({}), tools.read?.({})]),
  });
  const fixture = codeModeFixture({
    model: runCodeModel('mixed'),
    presentation: 'code',
    tools: [track('read', true), track('write', false)],
    runner,
  });
  const outcome = await fixture.handle.agent.prompt('go');
  assert.equal(outcome.reason, 'completed');
  assert.deepEqual(overlaps, []);
  assertSessionInvariants(fixture.handle.log.events);
  await fixture.close();
});

test('an inner bash meets the permission rules: a deny rule refuses it, an ask rule asks', async () => {
  const ran: string[] = [];
  const asked: string[] = [];
  const bash: ToolDefinition = {
    name: 'bash',
    description: 'Runs a command.',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string' } },
      required: ['command'],
    },
    execute: (args: { command: string }) => {
      ran.push(args.command);
      return `ran ${args.command}`;
    },
  };
  const asker: PermissionAsker = {
    async ask({ call }) {
      asked.push((call.arguments as { command: string }).command);
      return true;
    },
  };
  const runner = functionRunner({
    shell: async ({ tools }) => {
      let refusal = '';
      try {
        await tools.bash?.({ command: 'rm -rf build' });
      } catch (error) {
        refusal = `${(error as { code?: string }).code}: ${(error as Error).message}`;
      }
      return { refusal, listed: await tools.bash?.({ command: 'ls' }) };
    },
  });
  const fixture = codeModeFixture({
    model: runCodeModel('shell'),
    presentation: 'code',
    tools: [bash],
    runner,
    prepare(root) {
      installPermissionRules(root, [
        { tool: 'bash', action: 'deny', match: { command: 'rm *' } },
        { tool: 'bash', action: 'ask' },
      ]);
      root.provide(permissionAskerKey, asker);
    },
  });
  const outcome = await fixture.handle.agent.prompt('go');
  assert.equal(outcome.reason, 'completed');
  assert.deepEqual(ran, ['ls']);
  assert.deepEqual(asked, ['ls']);
  assert.match(
    outcome.text,
    /"refusal":"TOOL_DENIED: bash was denied: denied by a permission rule/,
  );
  assert.match(outcome.text, /"listed":"ran ls"/);
  await fixture.close();
});

test('the SDK leaves out tools refused outright, follows the tool set, and is logged once per content', async () => {
  let hideLater = false;
  const fixture = codeModeFixture({
    model: { default: { reply: 'ok' } },
    presentation: 'code',
    tools: [tool('visible', () => 'v'), tool('secret', () => 's'), tool('later', () => 'l')],
    runner: functionRunner({}),
    prepare(root) {
      installPermissionRules(root, [{ tool: 'secret', action: 'deny' }]);
      root.use(toolsAvailable, (input, next) =>
        next(
          hideLater
            ? { ...input, tools: input.tools.filter((entry) => entry.name !== 'later') }
            : input,
        ),
      );
    },
  });
  await fixture.handle.agent.prompt('one');
  await fixture.handle.agent.prompt('two');
  hideLater = true;
  await fixture.handle.agent.prompt('three');
  const sdks = fixture.model.calls.map((call) => sdkSectionPattern.exec(call.system)?.[1] ?? '');
  assert.match(sdks[0] ?? '', /visible\(/);
  assert.match(sdks[0] ?? '', /later\(/);
  assert.doesNotMatch(sdks[0] ?? '', /secret/);
  assert.equal(sdks[1], sdks[0]);
  assert.doesNotMatch(sdks[2] ?? '', /later/);
  const blobs = fixture.handle.log.events.filter((event) => event.type === 'prompt/blob');
  assert.equal(blobs.length, 2);
  await fixture.close();
});

const answerSchema = {
  type: 'object',
  properties: { verdict: { type: 'string' } },
  required: ['verdict'],
  additionalProperties: false,
};

test('a capture inside a program commits only when its run_code call succeeds', async () => {
  const runner = functionRunner({
    captures: async ({ tools }) => {
      await tools.structured_output?.({ verdict: 'fine' });
      return 'captured';
    },
    'captures then fails': async ({ tools }) => {
      await tools.structured_output?.({ verdict: 'fine' });
      throw new Error('late failure');
    },
  });
  for (const [program, expected] of [
    ['captures', { kind: 'captured', value: { verdict: 'fine' } }],
    ['captures then fails', { kind: 'missing' }],
  ] as const) {
    const fixture = codeModeFixture({
      model: runCodeModel(program),
      presentation: 'code',
      runner,
    });
    const capture = attachStructuredOutput(fixture.handle, answerSchema);
    const outcome = await fixture.handle.agent.prompt('answer');
    const request = fixture.model.calls[0];
    assert.deepEqual(
      request?.tools.map((spec) => spec.name),
      ['run_code'],
    );
    assert.match(sdkSectionPattern.exec(request?.system ?? '')?.[1] ?? '', /structured_output\(/);
    assert.deepEqual(capture.outcome(), expected);
    if (expected.kind === 'missing') {
      assert.equal(outcome.reason, 'error');
      assert.equal(outcome.reason === 'error' && outcome.error.code, 'NO_STRUCTURED_OUTPUT');
      assert.match(outcome.reason === 'error' ? outcome.error.message : '', /late failure/);
    } else {
      assert.equal(outcome.reason, 'completed');
      // The capture concluded the turn: no second request.
      assert.equal(fixture.model.calls.length, 1);
    }
    assertSessionInvariants(fixture.handle.log.events);
    await fixture.close();
  }
});

test('cancel ends the program and its inner calls: the turn ends aborted with every start paired', async () => {
  const hanging = deferred();
  const hang = tool(
    'hang',
    (_args, execution) =>
      new Promise<string>((_resolve, reject) => {
        hanging.resolve();
        execution.signal.addEventListener('abort', () => reject(new Error('stopped')));
      }),
    { concurrencySafe: true },
  );
  const quick = tool('quick', () => 'quick', { concurrencySafe: true });
  const runner = functionRunner({
    hangs: async ({ tools }) => Promise.all([tools.quick?.({}), tools.hang?.({})]),
  });
  const fixture = codeModeFixture({
    model: runCodeModel('hangs'),
    presentation: 'code',
    tools: [quick, hang],
    runner,
  });
  const quickLogged = deferred();
  fixture.handle.log.onAppend((event) => {
    if (event.type === 'tool/result' && (event.data as Data<'tool/result'>).name === 'quick') {
      quickLogged.resolve();
    }
  });
  const turn = fixture.handle.agent.prompt('go');
  await Promise.all([hanging.promise, quickLogged.promise]);
  fixture.handle.agent.cancel('stop now');
  const outcome = await turn;
  assert.equal(outcome.reason, 'aborted');
  const events = fixture.handle.log.events;
  const lines = toolEvents(events);
  const callId = firstCallId(events);
  assert.deepEqual(lines, [
    `call ${callId} run_code`,
    `call ${callId}.1 quick in ${callId}`,
    `call ${callId}.2 hang in ${callId}`,
    `result ${callId}.1 quick in ${callId}`,
    `result ${callId}.2 hang in ${callId} error ABORTED`,
    `result ${callId} run_code error ABORTED`,
  ]);
  assertSessionInvariants(events);
  await fixture.close();
});

test('protection keeps the SDK section and run_code as declared, and no native copy of the capture tool in code mode', async () => {
  const fixture = codeModeFixture({
    model: { default: { reply: 'ok' } },
    presentation: 'code',
    tools: [tool('echo', () => 'e')],
    runner: functionRunner({}),
    prepare(root) {
      root.use(promptAssemble, (draft, next) =>
        next({
          sections: draft.sections.filter((section) => section.id !== 'tools:sdk'),
          tools: [
            ...draft.tools.filter((spec) => spec.name !== 'run_code'),
            { name: 'structured_output', description: 'injected', parameters: noArguments },
          ],
        }),
      );
    },
  });
  attachStructuredOutput(fixture.handle, answerSchema);
  await fixture.handle.agent.prompt('hello');
  const request = fixture.model.calls[0];
  assert.deepEqual(
    request?.tools.map((spec) => spec.name),
    ['run_code'],
  );
  const sdk = sdkSectionPattern.exec(request?.system ?? '')?.[1] ?? '';
  assert.match(sdk, /structured_output\(/);
  assert.match(sdk, /echo\(/);
  await fixture.close();
});

test('the output cap holds per call for console output and the returned value together', async () => {
  const outputBytes = 1024;
  const logged = 'x'.repeat(700);
  const code = 'big';
  const fixture = codeModeFixture({
    model: runCodeModel(code),
    presentation: 'code',
    limits: { outputBytes },
    runner: functionRunner({
      async big({ log }) {
        log(logged);
        return 'y'.repeat(700);
      },
    }),
  });
  try {
    await fixture.handle.agent.prompt('go');
    const result = fixture.handle.log.events.find((event) => event.type === 'tool/result');
    assert.ok(result, 'no tool/result was logged');
    const content = String((result.data as Data<'tool/result'>).content);
    const value = /Returned:\n(y*)/.exec(content)?.[1] ?? '';
    assert.equal(logged.length + value.length, outputBytes, content);
    assert.match(
      content,
      /\[the value was 700 bytes; cut at 324 \(console output and value share 1024 bytes a call\)/,
    );
  } finally {
    await fixture.close();
  }
});
