import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { LoomError } from '../../src/base/errors.js';
import { Context } from '../../src/core/context.js';
import { defineTool } from '../../src/core/define-tool.js';
import { validateToolArguments } from '../../src/core/tool-arguments.js';
import type {
  ToolDefinition,
  ToolExecution,
  ToolOutput,
  ToolResult,
} from '../../src/core/tool-contract.js';
import {
  type PermissionAsker,
  permissionAskerKey,
  type ToolObservation,
  ToolPipeline,
  toolExecute,
  toolPostExecute,
  toolPreExecute,
  toolResultObserved,
} from '../../src/core/tool-pipeline.js';
import type { ModelToolCall } from '../../src/llm/contract.js';
import { deferred } from '../helpers/deferred.js';

function makeTool(
  name: string,
  execute: (args: unknown, execution: ToolExecution) => ToolOutput | Promise<ToolOutput>,
  extra: Partial<ToolDefinition> = {},
): ToolDefinition {
  return {
    name,
    description: `the ${name} tool`,
    parameters: { type: 'object' },
    execute,
    ...extra,
  };
}

function setup(defaultTimeoutMs?: number) {
  const context = new Context({ name: 'agent-1', reportListenerError: () => {} });
  const pipeline =
    defaultTimeoutMs === undefined
      ? new ToolPipeline({ context })
      : new ToolPipeline({ context, defaultTimeoutMs });
  const observations: ToolObservation[] = [];
  context.on(toolResultObserved, (observation) => {
    observations.push(observation);
  });
  return { context, pipeline, observations };
}

let nextId = 0;
function call(name: string, args: unknown = {}): ModelToolCall {
  nextId += 1;
  return { id: `call-${nextId}`, name, arguments: args };
}

function step(
  pipeline: ToolPipeline,
  calls: ModelToolCall[],
  extra: { signal?: AbortSignal; onResult?: (result: ToolResult, index: number) => void } = {},
) {
  return pipeline.executeStep({
    calls,
    agentId: 'agent-1',
    turnId: 'turn-1',
    signal: extra.signal ?? new AbortController().signal,
    concludeTurn: () => {},
    ...(extra.onResult ? { onResult: extra.onResult } : {}),
  });
}

async function single(pipeline: ToolPipeline, modelCall: ModelToolCall): Promise<ToolResult> {
  const [result] = await step(pipeline, [modelCall]);
  assert.ok(result);
  return result;
}

test('every stage runs in order and tools/result sees the final result', async () => {
  const { context, pipeline, observations } = setup();
  const trace: string[] = [];
  let concluded = false;
  let bodyExecution: ToolExecution | undefined;
  pipeline.register(
    makeTool('echo', (args, execution) => {
      trace.push('body');
      bodyExecution = execution;
      assert.equal(execution.context, context);
      assert.equal(execution.agentId, 'agent-1');
      assert.equal(execution.turnId, 'turn-1');
      execution.concludeTurn();
      return `echo ${JSON.stringify(args)}`;
    }),
  );
  context.use(toolPreExecute, (request, next) => {
    trace.push(`pre-execute ${request.tool.name}`);
    return next(request);
  });
  pipeline.guard(() => {
    trace.push('guard');
    return undefined;
  });
  context.use(toolExecute, async (execution, next) => {
    trace.push('execute before');
    const result = await next(execution);
    trace.push('execute after');
    return result;
  });
  context.use(toolPostExecute, ({ result }) => {
    trace.push('post-execute');
    return { ...result, content: `${result.content} (reviewed)` };
  });
  context.on(toolResultObserved, () => {
    trace.push('result observed');
  });
  const results = await pipeline.executeStep({
    calls: [call('echo', { a: 1 })],
    agentId: 'agent-1',
    turnId: 'turn-1',
    signal: new AbortController().signal,
    concludeTurn: () => {
      concluded = true;
    },
  });
  assert.deepEqual(trace, [
    'pre-execute echo',
    'guard',
    'execute before',
    'body',
    'execute after',
    'post-execute',
    'result observed',
  ]);
  assert.equal(results[0]?.content, 'echo {"a":1} (reviewed)');
  assert.equal(results[0]?.isError, false);
  assert.equal(observations[0]?.result, results[0]);
  assert.equal(observations[0]?.execution, bodyExecution);
  assert.equal(concluded, true);
});

test('a guard denies even when a pre-execute listener force-allows without calling next', async () => {
  const { context, pipeline } = setup();
  let ran = false;
  pipeline.register(
    makeTool('bash', () => {
      ran = true;
      return 'ran';
    }),
  );
  context.use(toolPreExecute, () => ({ action: 'allow' }));
  pipeline.guard((request) =>
    request.name === 'bash' ? { deny: 'structured output is final' } : undefined,
  );
  const result = await single(pipeline, call('bash'));
  assert.equal(ran, false);
  assert.equal(result.errorCode, 'TOOL_DENIED');
  assert.match(result.content, /structured output is final/);
});

test("a parent's guard applies in a child scope, and a throwing guard denies", async () => {
  const { context, pipeline } = setup();
  const child = pipeline.child(context.child('child'));
  child.register(makeTool('work', () => 'done'));
  const dispose = pipeline.guard(() => ({ deny: 'parent says no' }));
  assert.match((await single(child, call('work'))).content, /parent says no/);
  dispose();
  child.guard(() => {
    throw new Error('guard broke');
  });
  const result = await single(child, call('work'));
  assert.equal(result.isError, true);
  assert.match(result.content, /guard broke/);
  const sibling = pipeline.child(context.child('sibling'));
  sibling.register(makeTool('work', () => 'done'));
  assert.equal((await single(sibling, call('work'))).content, 'done');
});

test('pre-execute deny becomes a TOOL_DENIED result with the reason', async () => {
  const { context, pipeline } = setup();
  let ran = false;
  pipeline.register(
    makeTool('rm', () => {
      ran = true;
      return 'gone';
    }),
  );
  context.use(toolPreExecute, () => ({ action: 'deny', reason: 'destructive' }));
  const result = await single(pipeline, call('rm'));
  assert.equal(ran, false);
  assert.equal(result.errorCode, 'TOOL_DENIED');
  assert.equal(result.isError, true);
  assert.match(result.content, /rm.*destructive/);
});

test('a pre-execute listener may rewrite the arguments that guards see and the body runs with', async () => {
  const { context, pipeline } = setup();
  const seen: unknown[] = [];
  pipeline.register(makeTool('read', (args) => JSON.stringify(args)));
  context.use(toolPreExecute, (request, next) =>
    next({ ...request, arguments: { path: '/workspace/a.txt' } }),
  );
  pipeline.guard((request) => {
    seen.push(request.arguments);
    return undefined;
  });
  const result = await single(pipeline, call('read', { path: 'a.txt' }));
  assert.deepEqual(seen, [{ path: '/workspace/a.txt' }]);
  assert.equal(result.content, '{"path":"/workspace/a.txt"}');
});

test('ask: the asker approves or refuses; with no asker the call is denied loudly', async () => {
  const { context, pipeline } = setup();
  pipeline.register(makeTool('deploy', () => 'deployed'));
  context.use(toolPreExecute, () => ({ action: 'ask', reason: 'touches production' }));
  const refused = await single(pipeline, call('deploy'));
  assert.equal(refused.errorCode, 'TOOL_DENIED');
  assert.match(refused.content, /requires approval \(touches production\).*nobody/);

  const questions: string[] = [];
  let answer = true;
  const asker: PermissionAsker = {
    async ask({ call: request, reason, signal }) {
      assert.equal(signal.aborted, false);
      questions.push(`${request.name}: ${reason}`);
      return answer;
    },
  };
  context.provide(permissionAskerKey, asker);
  assert.equal((await single(pipeline, call('deploy'))).content, 'deployed');
  answer = false;
  const declined = await single(pipeline, call('deploy'));
  assert.equal(declined.errorCode, 'TOOL_DENIED');
  assert.match(declined.content, /not approved/);
  assert.deepEqual(questions, ['deploy: touches production', 'deploy: touches production']);
});

test('a step aborted while waiting for approval cancels the call without running it', async () => {
  const { context, pipeline } = setup();
  let ran = false;
  const asked = deferred();
  pipeline.register(
    makeTool('deploy', () => {
      ran = true;
      return 'deployed';
    }),
  );
  context.use(toolPreExecute, () => ({ action: 'ask', reason: 'production' }));
  context.provide(permissionAskerKey, {
    ask: () => {
      asked.resolve();
      return new Promise<boolean>(() => {});
    },
  });
  const controller = new AbortController();
  const pending = step(pipeline, [call('deploy')], { signal: controller.signal });
  await asked.promise;
  controller.abort();
  const [result] = await pending;
  assert.equal(ran, false);
  assert.equal(result?.errorCode, 'ABORTED');
  assert.match(result?.content ?? '', /cancelled: deploy was stopped while waiting for approval/);
});

test('restrict hides a tool from listing and calls, in the scope and its children', async () => {
  const { context, pipeline } = setup();
  pipeline.register(makeTool('read', () => 'read'));
  pipeline.register(makeTool('bash', () => 'bash'));
  const child = pipeline.child(context.child('child'));
  const undo = pipeline.restrict(['bash']);
  assert.deepEqual(
    pipeline.specs().map((spec) => spec.name),
    ['read'],
  );
  assert.deepEqual(
    child.visible().map((tool) => tool.name),
    ['read'],
  );
  assert.equal(child.lookup('bash'), undefined);
  const result = await single(child, call('bash'));
  assert.equal(result.errorCode, 'UNKNOWN_TOOL');
  assert.match(result.content, /Available tools: read\./);
  undo();
  undo();
  assert.equal((await single(child, call('bash'))).content, 'bash');

  const childOnly = child.restrict(['read']);
  assert.deepEqual(
    pipeline.visible().map((tool) => tool.name),
    ['read', 'bash'],
  );
  assert.deepEqual(
    child.visible().map((tool) => tool.name),
    ['bash'],
  );
  childOnly();
});

test('a duplicate name in one scope fails loud; a child may shadow its parent', async () => {
  const { context, pipeline } = setup();
  pipeline.register(makeTool('read', () => 'parent read'));
  pipeline.register(makeTool('write', () => 'parent write'));
  assert.throws(
    () => pipeline.register(makeTool('read', () => 'again')),
    (error: unknown) =>
      error instanceof LoomError && error.code === 'DUPLICATE_TOOL' && /read/.test(error.message),
  );
  const child = pipeline.child(context.child('child'));
  const undo = child.register(makeTool('read', () => 'child read'));
  child.register(makeTool('report', () => 'report'));
  assert.deepEqual(
    child.visible().map((tool) => tool.name),
    ['write', 'read', 'report'],
  );
  assert.equal((await single(child, call('read'))).content, 'child read');
  assert.equal((await single(pipeline, call('read'))).content, 'parent read');
  undo();
  assert.equal((await single(child, call('read'))).content, 'parent read');
  assert.throws(() => pipeline.register(makeTool('bad name!', () => '')), /bad name!/);
});

test('invalid arguments produce one path-qualified problem per violation', async () => {
  const { pipeline, observations } = setup();
  let ran = false;
  pipeline.register({
    name: 'write_file',
    description: 'writes',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        content: { type: 'string' },
        items: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' } } },
        },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    execute: () => {
      ran = true;
      return 'written';
    },
  });
  const result = await single(
    pipeline,
    call('write_file', { path: 7, items: [{ name: 'a' }, { name: 'b' }, { name: 3 }], x: true }),
  );
  assert.equal(ran, false);
  assert.equal(result.errorCode, 'TOOL_ARGUMENTS');
  assert.equal(
    result.content,
    [
      'Invalid arguments for write_file:',
      "- arguments: must have required property 'content'",
      "- arguments: must NOT have additional property 'x'",
      '- arguments.path: must be string',
      '- arguments.items[2].name: must be string',
      'Fix the arguments and call the tool again.',
    ].join('\n'),
  );
  const text = await single(pipeline, call('write_file', '{"path": "a.txt", "content": '));
  assert.equal(text.errorCode, 'TOOL_ARGUMENTS');
  assert.match(text.content, /arguments are not valid JSON: \{"path": "a.txt", "content": /);
  assert.equal(observations[1]?.execution.arguments, '{"path": "a.txt", "content": ');
});

test('argument validation never mutates the value and reports a broken schema by tool name', () => {
  const tool = makeTool('defaults', () => '', {
    parameters: {
      type: 'object',
      properties: { count: { type: 'number', default: 3 }, flag: { type: 'boolean' } },
    },
  });
  const raw = { flag: 'true' };
  const check = validateToolArguments(tool, raw);
  assert.deepEqual(check, { ok: false, problems: ['arguments.flag: must be boolean'] });
  assert.deepEqual(raw, { flag: 'true' });
  const valid = { flag: true };
  const passed = validateToolArguments(tool, valid);
  assert.ok(passed.ok);
  assert.equal(passed.value, valid);
  assert.deepEqual(valid, { flag: true });

  const broken = makeTool('broken', () => '', { parameters: { type: 'object', properties: 3 } });
  const report = validateToolArguments(broken, {});
  assert.equal(report.ok, false);
  assert.match(
    report.ok ? '' : (report.problems[0] ?? ''),
    /tool broken has an invalid parameters schema/,
  );
  const enumerated = makeTool('mode', () => '', {
    parameters: { type: 'object', properties: { mode: { enum: ['fast', 'slow'] } } },
  });
  assert.deepEqual(validateToolArguments(enumerated, { mode: 'medium' }), {
    ok: false,
    problems: ['arguments.mode: must be one of "fast", "slow"'],
  });
});

test('defineTool declares parameters with zod and validation goes through the same path', async () => {
  const { pipeline } = setup();
  const tool = defineTool({
    name: 'greet',
    description: 'greets',
    schema: z.object({ name: z.string(), times: z.number().int().optional() }),
    concurrencySafe: true,
    execute: (args) => `hello ${args.name}`.repeat(args.times ?? 1),
  });
  assert.equal(tool.parameters.$schema, undefined);
  assert.equal(tool.parameters.type, 'object');
  assert.equal(tool.concurrencySafe, true);
  pipeline.register(tool);
  assert.equal((await single(pipeline, call('greet', { name: 'ada' }))).content, 'hello ada');
  const wrong = await single(pipeline, call('greet', { name: 1 }));
  assert.match(wrong.content, /arguments\.name: must be string/);
  assert.throws(
    () =>
      defineTool({
        name: 'refined',
        description: '',
        schema: z.object({ path: z.string().refine((path) => path.length > 0) }),
        execute: () => '',
      }),
    /refined.*refinement at properties\.path/,
  );
});

test('a throw at the body or at any hook becomes an error result; bad output is normalised', async () => {
  const { context, pipeline } = setup();
  pipeline.register(
    makeTool('explode', () => {
      throw new LoomError('SESSION_NOT_FOUND', 'no such session');
    }),
  );
  pipeline.register(makeTool('numeric', () => ({ content: 42 }) as unknown as ToolOutput));
  pipeline.register(
    makeTool('flagged', () => ({ content: 'partial', isError: true, metadata: { n: 1 } })),
  );
  pipeline.register(makeTool('fine', () => 'fine'));
  const body = await single(pipeline, call('explode'));
  assert.deepEqual(
    { content: body.content, isError: body.isError, errorCode: body.errorCode },
    { content: 'no such session', isError: true, errorCode: 'SESSION_NOT_FOUND' },
  );
  const numeric = await single(pipeline, call('numeric'));
  assert.equal(numeric.isError, true);
  assert.match(numeric.content, /numeric.*content is 42, not text/);
  assert.deepEqual(await single(pipeline, call('flagged')), {
    callId: `call-${nextId}`,
    name: 'flagged',
    content: 'partial',
    isError: true,
    metadata: { n: 1 },
  });

  const hooks = [
    [toolPreExecute, 'tools/pre-execute'],
    [toolExecute, 'tools/execute'],
    [toolPostExecute, 'tools/post-execute'],
  ] as const;
  for (const [hook, label] of hooks) {
    const undo = context.use(hook as typeof toolExecute, () => {
      throw new Error(`${label} listener broke`);
    });
    const result = await single(pipeline, call('fine'));
    assert.equal(result.isError, true);
    assert.equal(result.content, `${label} failed: ${label} listener broke`);
    undo();
  }
  const postUndo = context.use(toolPostExecute, () => ({ content: null }) as unknown as ToolResult);
  assert.match((await single(pipeline, call('fine'))).content, /content is null/);
  postUndo();
  context.use(toolPreExecute, () => undefined as unknown as { action: 'allow' });
  assert.match((await single(pipeline, call('fine'))).content, /not a decision/);
});

test('a tool past its time limit is aborted and reported as TOOL_TIMEOUT', async () => {
  const { pipeline } = setup(1);
  const sawAbort = deferred<unknown>();
  const waitForAbort = (_args: unknown, execution: ToolExecution) =>
    new Promise<string>(() => {
      execution.signal.addEventListener('abort', () => sawAbort.resolve(execution.signal.reason));
    });
  pipeline.register(makeTool('slow', waitForAbort));
  pipeline.register(makeTool('slower', waitForAbort, { timeoutMs: 2 }));
  const result = await single(pipeline, call('slow'));
  assert.equal(result.errorCode, 'TOOL_TIMEOUT');
  assert.equal(result.content, 'Tool slow timed out after 1 ms and was stopped.');
  const reason = await sawAbort.promise;
  assert.ok(reason instanceof LoomError && reason.code === 'TOOL_TIMEOUT');
  assert.match((await single(pipeline, call('slower'))).content, /slower timed out after 2 ms/);
  assert.throws(
    () => new ToolPipeline({ context: new Context(), defaultTimeoutMs: 0 }),
    /defaultTimeoutMs/,
  );
});

test('consecutive concurrency-safe calls overlap; an unsafe call waits; results commit in model order', async () => {
  const { pipeline, observations } = setup();
  const started: string[] = [];
  const gates = new Map<string, ReturnType<typeof deferred<string>>>();
  const bothStarted = deferred();
  const laterFinished = deferred();
  for (const name of ['first', 'second', 'third']) gates.set(name, deferred<string>());
  const gated = (name: string) => () => {
    started.push(name);
    if (started.includes('first') && started.includes('second')) bothStarted.resolve();
    return (gates.get(name) as ReturnType<typeof deferred<string>>).promise;
  };
  pipeline.register(makeTool('first', gated('first'), { concurrencySafe: true }));
  pipeline.register(makeTool('second', gated('second'), { concurrencySafe: true }));
  pipeline.register(makeTool('third', gated('third')));
  const committed: string[] = [];
  const running = step(pipeline, [call('first'), call('second'), call('third')], {
    onResult: (result, index) => committed.push(`${index}:${result.content}`),
  });
  const observedBefore = observations.length;
  await bothStarted.promise;
  assert.deepEqual(started, ['first', 'second']);

  const unsubscribe = pipeline.context.on(toolResultObserved, ({ result }) => {
    if (result.name === 'second') laterFinished.resolve();
  });
  gates.get('second')?.resolve('second done');
  await laterFinished.promise;
  unsubscribe();
  assert.equal(observations.length, observedBefore + 1);
  assert.deepEqual(committed, []);
  assert.deepEqual(started, ['first', 'second']);

  gates.get('first')?.resolve('first done');
  gates.get('third')?.resolve('third done');
  const results = await running;
  assert.deepEqual(started, ['first', 'second', 'third']);
  assert.deepEqual(committed, ['0:first done', '1:second done', '2:third done']);
  assert.deepEqual(
    results.map((result) => result.content),
    ['first done', 'second done', 'third done'],
  );
});

test('an unsafe call runs alone before later safe calls start', async () => {
  const { pipeline } = setup();
  const started: string[] = [];
  const unsafeGate = deferred<string>();
  const unsafeStarted = deferred();
  pipeline.register(
    makeTool('unsafe', () => {
      started.push('unsafe');
      unsafeStarted.resolve();
      return unsafeGate.promise;
    }),
  );
  pipeline.register(
    makeTool(
      'safe',
      () => {
        started.push('safe');
        return 'safe done';
      },
      { concurrencySafe: true },
    ),
  );
  const running = step(pipeline, [call('unsafe'), call('safe'), call('safe')]);
  await unsafeStarted.promise;
  assert.deepEqual(started, ['unsafe']);
  unsafeGate.resolve('unsafe done');
  await running;
  assert.deepEqual(started, ['unsafe', 'safe', 'safe']);
});

test('tools/result carries the final result of every call, including unknown, invalid and denied', async () => {
  const { context, pipeline, observations } = setup();
  pipeline.register(makeTool('ok', () => 'fine'));
  pipeline.register(
    makeTool('typed', () => 'typed', {
      parameters: { type: 'object', properties: { n: { type: 'number' } } },
    }),
  );
  pipeline.register(makeTool('blocked', () => 'never'));
  context.use(toolPreExecute, (request, next) =>
    request.name === 'blocked' ? { action: 'deny', reason: 'policy' } : next(request),
  );
  context.use(toolPostExecute, ({ result }) => ({
    ...result,
    content: result.content.toUpperCase(),
  }));
  const results = await step(pipeline, [
    call('ok'),
    call('missing', { any: 1 }),
    call('typed', { n: 'x' }),
    call('blocked'),
  ]);
  assert.equal(observations.length, 4);
  assert.deepEqual(
    observations.map(({ result }) => result),
    results,
  );
  assert.deepEqual(
    results.map((result) => result.errorCode ?? result.content),
    ['FINE', 'UNKNOWN_TOOL', 'TOOL_ARGUMENTS', 'TOOL_DENIED'],
  );
  assert.deepEqual(observations[1]?.execution.arguments, { any: 1 });
  assert.deepEqual(observations[2]?.execution.arguments, { n: 'x' });
  assert.equal(observations[0]?.execution.callId, results[0]?.callId);
  assert.ok(Object.isFrozen(observations[0]?.execution));
});

test('an aborted step: unstarted calls are cancelled without running, running ones see the abort', async () => {
  const { pipeline } = setup();
  const ran: string[] = [];
  const running = deferred();
  const runningSawAbort = deferred();
  pipeline.register(
    makeTool('long', (_args, execution) => {
      ran.push('long');
      execution.signal.addEventListener('abort', () => runningSawAbort.resolve());
      running.resolve();
      return new Promise<string>(() => {});
    }),
  );
  pipeline.register(
    makeTool('next', () => {
      ran.push('next');
      return 'next';
    }),
  );
  const before = new AbortController();
  before.abort();
  const early = await step(pipeline, [call('long'), call('next')], { signal: before.signal });
  assert.deepEqual(ran, []);
  assert.deepEqual(
    early.map((result) => [result.errorCode, /cancelled/.test(result.content)]),
    [
      ['ABORTED', true],
      ['ABORTED', true],
    ],
  );

  const controller = new AbortController();
  const pending = step(pipeline, [call('long'), call('next')], { signal: controller.signal });
  await running.promise;
  controller.abort();
  await runningSawAbort.promise;
  const results = await pending;
  assert.deepEqual(ran, ['long']);
  assert.deepEqual(
    results.map((result) => result.errorCode),
    ['ABORTED', 'ABORTED'],
  );
});

test('a throwing onResult stops later calls and rejects the step', async () => {
  const { pipeline } = setup();
  const ran: string[] = [];
  pipeline.register(
    makeTool('one', () => {
      ran.push('one');
      return 'one';
    }),
  );
  await assert.rejects(
    step(pipeline, [call('one'), call('one')], {
      onResult: () => {
        throw new Error('log is full');
      },
    }),
    /log is full/,
  );
  assert.deepEqual(ran, ['one']);
});

test('registerAll registers a layer in order or, on a bad or taken name, none; one undo takes them back', async () => {
  const { pipeline } = setup();
  pipeline.register(makeTool('read', () => 'read'));
  const isDuplicate = (name: string) => (error: unknown) =>
    error instanceof LoomError && error.code === 'DUPLICATE_TOOL' && error.message.includes(name);
  const names = () => pipeline.visible().map((tool) => tool.name);
  assert.throws(
    () => pipeline.registerAll([makeTool('todo', () => ''), makeTool('read', () => '')]),
    isDuplicate('read'),
  );
  assert.throws(
    () => pipeline.registerAll([makeTool('plan', () => ''), makeTool('plan', () => '')]),
    isDuplicate('plan'),
  );
  assert.throws(
    () => pipeline.registerAll([makeTool('todo', () => ''), makeTool('bad name!', () => '')]),
    /bad name!/,
  );
  assert.deepEqual(names(), ['read'], 'a refused layer leaves nothing registered');
  const undo = pipeline.registerAll([makeTool('todo', () => 'todo'), makeTool('plan', () => '')]);
  assert.deepEqual(names(), ['read', 'todo', 'plan']);
  assert.equal((await single(pipeline, call('todo'))).content, 'todo');
  undo();
  assert.deepEqual(names(), ['read']);
  pipeline.register(makeTool('todo', () => 'own todo'));
  undo();
  assert.equal(
    (await single(pipeline, call('todo'))).content,
    'own todo',
    'an undo twice keeps a later tool',
  );
});
