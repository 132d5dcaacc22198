import assert from 'node:assert/strict';
import { test } from 'node:test';
import vm from 'node:vm';
import { MessageChannel } from 'node:worker_threads';
import type { WorkflowLimits } from '../../src/workflow/contract.js';
import { defaultLimits } from '../../src/workflow/limits.js';
import {
  type AgentReply,
  type DoneOutcome,
  HostMessage,
  sendToWorker,
  type WorkerEnvelope,
  WorkerMessage,
  type WorkerPayloads,
  type WorkflowLoadReply,
} from '../../src/workflow/protocol.js';
import { scriptFrames } from '../../src/workflow/render-thrown.js';
import { readWorkerMessage } from '../../src/workflow/wire-check.js';
import { runWorkerSession } from '../../src/workflow/worker-session.js';
import { afterRejectionsReported } from '../helpers/event-loop.js';
import { deferred, testMeta } from './engine-fixture.js';

type AgentStart = WorkerPayloads[WorkerMessage.AgentStart];
type WorkflowLoad = WorkerPayloads[WorkerMessage.WorkflowLoad];

interface SessionOptions {
  args?: Record<string, unknown>;
  limits?: Partial<WorkflowLimits>;
  /** Answers agent-start at once; undefined holds the call until the test replies. */
  respond?: (start: AgentStart) => AgentReply | undefined;
  /** Send `go` as soon as the session is ready; default true. */
  go?: boolean;
  /** Answers workflow-load at once; undefined holds the load. */
  load?: (load: WorkflowLoad) => WorkflowLoadReply | undefined;
  /** The run's token ceiling (the script's `budget.total`); default none. */
  budgetTotal?: number | null;
}

/** A worker session on one end of an in-process MessageChannel, the test on the other. */
function session(script: string, options: SessionOptions = {}) {
  const channel = new MessageChannel();
  const host = channel.port1;
  const messages: WorkerEnvelope[] = [];
  const changed: Array<() => void> = [];
  const done = deferred<DoneOutcome>();
  const reply = (call: number, answer: AgentReply) =>
    sendToWorker(host, HostMessage.AgentResult, { call, reply: answer });
  host.on('message', (raw) => {
    const reading = readWorkerMessage(raw);
    assert.ok('message' in reading, `the worker broke the protocol: ${JSON.stringify(reading)}`);
    const { message } = reading;
    messages.push(message);
    if (message.tag === WorkerMessage.Ready && options.go !== false) {
      sendToWorker(host, HostMessage.Go, {});
    }
    if (message.tag === WorkerMessage.AgentStart) {
      const answer = options.respond?.(message.payload);
      if (answer) reply(message.payload.call, answer);
    }
    if (message.tag === WorkerMessage.WorkflowLoad) {
      const answer = options.load?.(message.payload);
      if (answer) {
        sendToWorker(host, HostMessage.WorkflowLoaded, {
          load: message.payload.load,
          reply: answer,
        });
      }
    }
    if (message.tag === WorkerMessage.Done) {
      done.resolve(message.payload);
      host.close();
    }
    for (const check of changed.splice(0)) check();
  });
  runWorkerSession(channel.port2, {
    script,
    args: options.args ?? {},
    limits: { ...defaultLimits(), ...options.limits },
    meta: testMeta,
    budgetTotal: options.budgetTotal ?? null,
  });
  const until = (check: () => boolean) =>
    new Promise<void>((resolve) => {
      const test = () => (check() ? resolve() : changed.push(test));
      test();
    });
  const agentStarts = () =>
    messages.flatMap((message) =>
      message.tag === WorkerMessage.AgentStart ? [message.payload] : [],
    );
  return {
    messages,
    /** Posts raw data to the session, as the host's batching does. */
    post: (data: unknown) => host.postMessage(data),
    done: done.promise,
    reply,
    go: () => sendToWorker(host, HostMessage.Go, {}),
    cancel: (reason = 'test') => sendToWorker(host, HostMessage.Cancel, { reason }),
    agentStarts,
    /** The agent-start whose prompt matches, once it has been sent. */
    async agentStart(prompt: string): Promise<AgentStart> {
      await until(() => agentStarts().some((start) => start.prompt === prompt));
      return agentStarts().find((start) => start.prompt === prompt) as AgentStart;
    },
    ready: () => until(() => messages.some((message) => message.tag === WorkerMessage.Ready)),
    /** Resolves once the session has sent a message with this tag. */
    sent: (tag: WorkerMessage) => until(() => messages.some((message) => message.tag === tag)),
    tags: () => messages.map((message) => message.tag),
  };
}

const echo = (start: AgentStart): AgentReply => ({ kind: 'ok', value: `<${start.prompt}>` });

async function finished(script: string, options: SessionOptions = {}): Promise<DoneOutcome> {
  return session(script, { respond: echo, ...options }).done;
}

function assertError(outcome: DoneOutcome, code: string | undefined, pattern?: RegExp) {
  assert.equal(outcome.kind, 'error', JSON.stringify(outcome));
  if (outcome.kind !== 'error') return;
  assert.equal(outcome.code, code, outcome.message);
  if (pattern) assert.match(outcome.message, pattern);
}

test('the session says ready, runs the body only after go, and posts done last', async () => {
  const run = session(`log('ran'); return 1;`, { go: false });
  await run.ready();
  assert.deepEqual(run.tags(), [WorkerMessage.Ready]);
  run.go();
  assert.deepEqual(await run.done, { kind: 'ok', value: 1 });
  assert.deepEqual(run.tags(), [
    WorkerMessage.Ready,
    WorkerMessage.Started,
    WorkerMessage.Log,
    WorkerMessage.Done,
  ]);
});

test('a run cancelled before go never runs its body', async () => {
  const run = session(`log('ran'); await agent('x'); return 1;`, { go: false });
  await run.ready();
  run.cancel('changed my mind');
  run.go();
  assertError(await run.done, 'CANCELLED', /changed my mind/);
  assert.deepEqual(run.tags(), [WorkerMessage.Ready, WorkerMessage.Done]);
});

test('the script sees exactly the hooks, args and the language builtins', async () => {
  const outcome = await finished(`
    return {
      names: Object.getOwnPropertyNames(globalThis),
      types: [typeof agent, typeof parallel, typeof pipeline, typeof phase, typeof log, typeof args,
        typeof workflow],
      absent: [typeof setTimeout, typeof fetch, typeof process, typeof console, typeof require,
        typeof queueMicrotask, typeof structuredClone, typeof setImmediate],
    };`);
  assert.equal(outcome.kind, 'ok');
  const value = (outcome as { value: { names: string[]; types: string[]; absent: string[] } })
    .value;
  const builtins = (vm.runInNewContext('Object.getOwnPropertyNames(globalThis)') as string[])
    .filter((name) => name !== 'console')
    .sort();
  const hooks = ['agent', 'parallel', 'pipeline', 'phase', 'log', 'args', 'budget', 'workflow'];
  assert.deepEqual([...value.names].sort(), [...builtins, ...hooks].sort());
  assert.deepEqual(value.types, [
    'function',
    'function',
    'function',
    'function',
    'function',
    'object',
    'function',
  ]);
  assert.deepEqual(value.absent, Array(8).fill('undefined'));
});

test('phase and log post events; agent sends its checked options and resolves the reply', async () => {
  const run = session(
    `phase('Scan');
     log('scanning');
     const text = await agent('plain');
     const data = await agent('typed', { label: 'L', phase: 'P', model: 'm:1', schema: { type: 'object', properties: { n: { type: 'number' } } } });
     return { text, data };`,
    {
      respond: (start) => (start.options.schema ? { kind: 'ok', value: { n: 7 } } : echo(start)),
    },
  );
  assert.deepEqual(await run.done, { kind: 'ok', value: { text: '<plain>', data: { n: 7 } } });
  const events = run.messages.filter(
    (message) => message.tag === WorkerMessage.Phase || message.tag === WorkerMessage.Log,
  );
  assert.deepEqual(
    events.map((message) => message.payload),
    [{ title: 'Scan' }, { message: 'scanning' }],
  );
  assert.deepEqual(run.agentStarts(), [
    { call: 1, prompt: 'plain', options: {} },
    {
      call: 2,
      prompt: 'typed',
      options: {
        label: 'L',
        phase: 'P',
        model: 'm:1',
        schema: { type: 'object', properties: { n: { type: 'number' } } },
      },
    },
  ]);
});

test('an unknown agent() option is fatal and named', async () => {
  assertError(
    await finished(`return await agent('x', { lable: 'typo' });`),
    'UNSUPPORTED_OPTION',
    /"lable".*label, phase, schema, model/,
  );
});

test('malformed hook arguments are fatal INVALID_ARGUMENT errors', async () => {
  const cases: Array<[string, RegExp]> = [
    [`await agent('')`, /prompt must be a non-empty string/],
    [`await agent(42)`, /prompt must be a non-empty string, not a number/],
    [`await agent('x', 'label')`, /options must be a plain object/],
    [`await agent('x', { label: 3 })`, /option label must be a non-empty string/],
    [`await agent('x', { schema: [] })`, /option schema must be a JSON Schema object/],
    [`phase(1)`, /phase\(\) title must be a non-empty string/],
    [`log({})`, /log\(\) message must be a string/],
    [`await parallel(() => 1)`, /parallel\(\) takes an array of functions/],
    [`await parallel([1])`, /parallel\(\) item 0 must be a function/],
    [`await pipeline('abc', (x) => x)`, /pipeline\(\) takes an array of items/],
    [`await pipeline([1])`, /at least one stage/],
    [`await pipeline([1], (x) => x, 'no')`, /stage 2 must be a function/],
  ];
  for (const [body, pattern] of cases) {
    const outcome = await finished(`${body}; return 'survived';`);
    assertError(outcome, 'INVALID_ARGUMENT', pattern);
    assert.equal((outcome as { fatal: boolean }).fatal, true);
  }
});

test('a schema JSON cannot carry is fatal before any child starts', async () => {
  const run = session(`return await agent('x', { schema: { type: 'object', check: () => 1 } });`, {
    respond: echo,
  });
  assertError(await run.done, 'RESULT_UNSERIALIZABLE', /schema\.check: a function/);
  assert.deepEqual(run.agentStarts(), []);
});

test('a misspelled agent() option is fatal inside parallel, not nulled, and names the closest', async () => {
  const outcome = await finished(
    `return await parallel([() => agent('a'), () => agent('b', { efort: 'high' })]);`,
  );
  assertError(outcome, 'UNSUPPORTED_OPTION', /no option "efort" \(did you mean effort\?\)/);
  const inPipeline = await finished(
    `return await pipeline(['a'], (item) => agent(item, { agenttype: 'reviewer' }));`,
  );
  assertError(
    inPipeline,
    'UNSUPPORTED_OPTION',
    /no option "agenttype" \(did you mean agentType\?\)/,
  );
});

test('effort, isolation and agentType are checked and sent; a bad value is fatal', async () => {
  const run = session(
    `return await agent('x', { effort: 'max', isolation: 'worktree', agentType: 'reviewer' });`,
    { respond: echo },
  );
  assert.deepEqual(await run.done, { kind: 'ok', value: '<x>' });
  assert.deepEqual(run.agentStarts(), [
    {
      call: 1,
      prompt: 'x',
      options: { effort: 'max', isolation: 'worktree', agentType: 'reviewer' },
    },
  ]);
  const cases: Array<[string, RegExp]> = [
    [`{ effort: 'extreme' }`, /effort must be one of low, medium, high, max, not "extreme"/],
    [`{ effort: 'hihg' }`, /not "hihg" \(did you mean high\?\)/],
    [`{ isolation: 'copy' }`, /isolation must be "worktree" .*not "copy"/],
    [`{ agentType: '' }`, /agentType must be a non-empty string, not an empty string/],
  ];
  for (const [options, pattern] of cases) {
    const outcome = await finished(`return await parallel([() => agent('b', ${options})]);`);
    assertError(outcome, 'INVALID_ARGUMENT', pattern);
  }
});

test('hook errors are not instanceof Error in the script; name, code and fatal are readable', async () => {
  const outcome = await finished(`
    try { agent('x', { isolation: 'copy' }); }
    catch (error) { return [error instanceof Error, error.name, error.code, error.fatal]; }`);
  assert.deepEqual(outcome, {
    kind: 'ok',
    value: [false, 'WorkflowError', 'INVALID_ARGUMENT', true],
  });
});

test('parallel nulls ordinary failures and keeps order', async () => {
  const outcome = await finished(
    `
    return await parallel([
      () => agent('a'),
      () => { throw new Error('sync'); },
      async () => { throw new Error('async'); },
      () => agent('fails'),
      () => 'plain',
    ]);`,
    {
      respond: (start) =>
        start.prompt === 'fails' ? { kind: 'failure', reason: 'model error' } : echo(start),
    },
  );
  assert.deepEqual(outcome, { kind: 'ok', value: ['<a>', null, null, null, 'plain'] });
});

test('a child failure resolves null; a fatal reply rejects and is re-thrown by parallel', async () => {
  const failed = await finished(`return await agent('x');`, {
    respond: () => ({ kind: 'failure', reason: 'it broke' }),
  });
  assert.deepEqual(failed, { kind: 'ok', value: null });
  const capped = await finished(`return await parallel([() => agent('a'), () => agent('b')]);`, {
    respond: (start) =>
      start.prompt === 'b'
        ? { kind: 'fatal', code: 'AGENT_CAP', message: 'too many agents' }
        : echo(start),
  });
  assertError(capped, 'AGENT_CAP', /too many agents/);
});

test('a pipeline stage throw nulls its item and skips its later stages; null passes on', async () => {
  const outcome = await finished(`
    const seen = [];
    const results = await pipeline([1, 2, 3, 4],
      (value) => { if (value === 2) throw new Error('no'); return value === 4 ? null : value * 10; },
      (previous, item, index) => { seen.push([previous, item, index]); return previous === null ? 'was null' : previous + 1; });
    return { results, seen };`);
  assert.deepEqual(outcome, {
    kind: 'ok',
    value: {
      results: [11, null, 31, 'was null'],
      seen: [
        [10, 1, 0],
        [30, 3, 2],
        [null, 4, 3],
      ],
    },
  });
});

test('pipeline has no barrier between stages', async () => {
  const run = session(`
    return await pipeline(['A', 'B'],
      (item) => agent('one ' + item),
      (previous, item) => agent('two ' + item + ' after ' + previous));`);
  const firstA = await run.agentStart('one A');
  const firstB = await run.agentStart('one B');
  run.reply(firstA.call, { kind: 'ok', value: 'a1' });
  const secondA = await run.agentStart('two A after a1');
  assert.ok(
    !run.agentStarts().some((start) => start.prompt.startsWith('two B')),
    'item B is still in stage 1 while item A has reached stage 2',
  );
  run.reply(secondA.call, { kind: 'ok', value: 'a2' });
  run.reply(firstB.call, { kind: 'ok', value: 'b1' });
  const secondB = await run.agentStart('two B after b1');
  run.reply(secondB.call, { kind: 'ok', value: 'b2' });
  assert.deepEqual(await run.done, { kind: 'ok', value: ['a2', 'b2'] });
});

test('agent calls reach the host in the order the script makes them', async () => {
  const outcome = session(
    `return await parallel(['p0', 'p1', 'p2', 'p3', 'p4'].map((prompt) => () => agent(prompt)));`,
    { respond: echo },
  );
  assert.deepEqual(await outcome.done, {
    kind: 'ok',
    value: ['<p0>', '<p1>', '<p2>', '<p3>', '<p4>'],
  });
  assert.deepEqual(
    outcome.agentStarts().map((start) => [start.call, start.prompt]),
    [
      [1, 'p0'],
      [2, 'p1'],
      [3, 'p2'],
      [4, 'p3'],
      [5, 'p4'],
    ],
  );
});

test('a post of several envelopes from the host is read in order', async () => {
  const run = session(
    `const first = agent('first');
     const second = agent('second');
     const seen = [await first];
     try { await second; } catch (error) { seen.push(error.code); }
     return seen;`,
  );
  await run.agentStart('second');
  run.post([
    { tag: HostMessage.AgentResult, payload: { call: 1, reply: { kind: 'ok', value: 'one' } } },
    { tag: HostMessage.Cancel, payload: { reason: 'test' } },
  ]);
  assert.deepEqual(await run.done, { kind: 'ok', value: ['one', 'CANCELLED'] });
});

test('an empty post from the host is a protocol fault', async () => {
  const run = session(`return await agent('held');`);
  await run.agentStart('held');
  run.post([]);
  assertError(await run.done, undefined, /protocol fault: an unknown message/);
});

test('parallel and pipeline refuse more items than maxItemsPerCall', async () => {
  const limits = { maxItemsPerCall: 3 };
  assertError(
    await finished(`return await parallel([1, 2, 3, 4].map(() => () => 1));`, { limits }),
    'ITEM_CAP',
    /4 items; the limit is 3/,
  );
  assertError(
    await finished(`return await pipeline([1, 2, 3, 4], (x) => x);`, { limits }),
    'ITEM_CAP',
  );
  assert.deepEqual(await finished(`return await pipeline([1, 2, 3], (x) => x);`, { limits }), {
    kind: 'ok',
    value: [1, 2, 3],
  });
});

test('args is a copy: the script cannot change the caller object', async () => {
  const args = { list: [1, 2], nested: { flag: true } };
  const outcome = await finished(
    `args.list.push(3); args.nested.flag = false; args.added = 1; return args;`,
    { args },
  );
  assert.deepEqual(outcome, {
    kind: 'ok',
    value: { list: [1, 2, 3], nested: { flag: false }, added: 1 },
  });
  assert.deepEqual(args, { list: [1, 2], nested: { flag: true } });
});

test('a return value JSON cannot carry ends the run RESULT_UNSERIALIZABLE', async () => {
  assertError(
    await finished(`return { when: new Date(0) };`),
    'RESULT_UNSERIALIZABLE',
    /return value\.when: a Date/,
  );
  assertError(await finished(`return [1, () => 2];`), 'RESULT_UNSERIALIZABLE', /\[1\]/);
});

test('a "__proto__" key in the return value stays a data property', async () => {
  const outcome = await finished(`return JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');`);
  assert.equal(outcome.kind, 'ok');
  const value = (outcome as { value: Record<string, unknown> }).value;
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.ok(Object.hasOwn(value, '__proto__'));
  assert.equal(value.polluted, undefined);
  assert.deepEqual(Object.keys(value), ['__proto__', 'a']);
});

test('a thrown value is rendered; the script has no code', async () => {
  const thrown = await finished(`throw new Error('bad input');`);
  assertError(thrown, undefined, /Error: bad input/);
  assert.equal((thrown as { fatal: boolean }).fatal, false);
  assertError(await finished(`throw 42;`), undefined, /^42$/);
  assert.deepEqual(await finished(`return;`), { kind: 'ok', value: null });
});

test('a synchronous spin in the first slice is stopped by syncTimeoutMs', async () => {
  const outcome = await finished(`while (true) {}`, { limits: { syncTimeoutMs: 100 } });
  assertError(outcome, undefined, /first synchronous slice ran longer than 100 ms/);
});

test('after cancel, pending and future hook calls fail with a fatal CANCELLED', async () => {
  const run = session(`
    const codes = [];
    try { await agent('held'); } catch (error) { codes.push(error.code, error.fatal); }
    try { log('after'); } catch (error) { codes.push(error.code); }
    try { await agent('later'); } catch (error) { codes.push(error.code); }
    try { await parallel([() => 1]); } catch (error) { codes.push(error.code); }
    return codes;`);
  await run.agentStart('held');
  run.cancel('stop now');
  assert.deepEqual(await run.done, {
    kind: 'ok',
    value: ['CANCELLED', true, 'CANCELLED', 'CANCELLED', 'CANCELLED'],
  });
  assert.deepEqual(
    run.agentStarts().map((start) => start.prompt),
    ['held'],
  );
});

test('cancel rejects a pending parallel even when its items never settle', async () => {
  const run = session(`
    try { await parallel([() => new Promise(() => {})]); }
    catch (error) { return error.code; }`);
  await run.ready();
  run.cancel();
  assert.deepEqual(await run.done, { kind: 'ok', value: 'CANCELLED' });
});

test('dropped hook promises never raise unhandled rejections', async () => {
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', record);
  try {
    const run = session(`
      agent('dropped');
      parallel([() => agent('dropped too')]);
      pipeline(['x'], (item) => agent(item));
      return 'left early';`);
    assert.deepEqual(await run.done, { kind: 'ok', value: 'left early' });
    await afterRejectionsReported();
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', record);
  }
});

test('a thrown error keeps only the script frames of its stack', () => {
  const rendered = [
    'Error: boom',
    '    at workflow-script.js:8:7',
    '    at async WorkerSession.execute (file:///x/dist/workflow/worker-session.js:124:27)',
    '    at inner (workflow-script.js:3:1)',
  ].join('\n');
  assert.equal(
    scriptFrames(rendered),
    'Error: boom\n    at workflow-script.js:8:7\n    at inner (workflow-script.js:3:1)',
  );
  assert.equal(scriptFrames('just a message'), 'just a message');
});

/** Every stack line of `text` names the script; the engine's files and source never show. */
function assertScriptFramesOnly(text: string) {
  const frames = text.split('\n').filter((line) => /^\s+at /.test(line));
  assert.ok(frames.length > 0, `no script frame left in:\n${text}`);
  for (const frame of frames) assert.match(frame, /workflow-script\.js/, text);
  assert.doesNotMatch(text, /materialize|worker-session|hooks|combinators|host\.stopped/);
}

test('value-boundary errors show the script frames only', async () => {
  const returned = await finished(`return { get x() { throw new Error('boom'); } };`);
  assertError(
    returned,
    'RESULT_UNSERIALIZABLE',
    /^return value\.x: reading it threw: Error: boom\n/,
  );
  assert.ok(returned.kind === 'error');
  assertScriptFramesOnly(returned.message);
  const option = await finished(
    `await agent('x', { schema: { get type() { throw new Error('no type'); } } });`,
  );
  assertError(option, 'RESULT_UNSERIALIZABLE', /^agent\(\) option schema\.type: reading it threw/);
  assert.ok(option.kind === 'error');
  assertScriptFramesOnly(option.message);
});

test('a thrown hook is named, never printed as source', async () => {
  const outcome = await finished(`throw agent;`);
  assert.deepEqual(outcome, { kind: 'error', message: '[function agent]', fatal: false });
  const inGetter = await finished(`return { get x() { throw parallel; } };`);
  assertError(inGetter, 'RESULT_UNSERIALIZABLE', /reading it threw: \[function parallel\]$/);
});

test('errors from hooks and combinators carry only the script frames in their stack', async () => {
  const outcome = await finished(`
    const stacks = [];
    const record = (action) => { try { action(); } catch (error) { stacks.push(error.stack); } };
    record(() => agent(''));
    record(() => parallel([1]));
    record(() => pipeline([1]));
    record(() => phase(3));
    try { await agent('x', { schema: { get type() { throw 1; } } }); } catch (error) { stacks.push(error.stack); }
    return stacks;`);
  assert.equal(outcome.kind, 'ok', JSON.stringify(outcome));
  const stacks = (outcome as { value: string[] }).value;
  assert.equal(stacks.length, 5);
  for (const stack of stacks) {
    assert.match(stack, /^WorkflowError: /);
    assertScriptFramesOnly(stack);
  }
});

/** A load answer: the nested script `script` under the meta name `name`. */
const nested = (name: string, script: string) => (): WorkflowLoadReply => ({
  kind: 'ok',
  name,
  script,
});

test('workflow() loads over the wire and runs the body in a fresh realm; its calls share the numbering and carry its name', async () => {
  const run = session(
    `globalThis.leaked = 'parent';
     phase('Top');
     const before = await agent('before');
     const inner = await workflow('./b.js', { n: 2, list: [1, { deep: true }] });
     const after = await agent('after');
     log('back');
     return { before, inner, after, leaked };`,
    {
      respond: echo,
      load: nested(
        'b',
        `phase('Inner');
         log('in b');
         const got = await agent('inner ' + args.n);
         return { got, args, leaked: typeof leaked, console: typeof console, nesting: typeof workflow };`,
      ),
    },
  );
  assert.deepEqual(await run.done, {
    kind: 'ok',
    value: {
      before: '<before>',
      inner: {
        got: '<inner 2>',
        args: { n: 2, list: [1, { deep: true }] },
        leaked: 'undefined',
        console: 'undefined',
        nesting: 'function',
      },
      after: '<after>',
      leaked: 'parent',
    },
  });
  assert.deepEqual(run.agentStarts(), [
    { call: 1, prompt: 'before', options: {} },
    { call: 2, prompt: 'inner 2', options: {}, workflow: 'b' },
    { call: 3, prompt: 'after', options: {} },
  ]);
  assert.deepEqual(
    run.messages.flatMap((message) =>
      message.tag === WorkerMessage.Phase ||
      message.tag === WorkerMessage.Log ||
      message.tag === WorkerMessage.WorkflowLoad
        ? [{ tag: message.tag, ...message.payload }]
        : [],
    ),
    [
      { tag: 'phase', title: 'Top' },
      { tag: 'workflow-load', load: 1, target: './b.js' },
      { tag: 'phase', title: 'Inner', workflow: 'b' },
      { tag: 'log', message: 'in b', workflow: 'b' },
      { tag: 'log', message: 'back' },
    ],
  );
});

test('a workflow() call inside a nested run throws NESTING_LIMIT synchronously and loads nothing', async () => {
  const caught = session(`return await workflow('b.js');`, {
    load: nested(
      'b',
      `let promise = 'none';
       try { promise = workflow('c.js'); } catch (error) { return [error.code, error.fatal, error.message]; }
       return 'no throw';`,
    ),
  });
  const outcome = await caught.done;
  assert.equal(outcome.kind, 'ok', JSON.stringify(outcome));
  const [code, fatalFlag, message] = (outcome as { value: [string, boolean, string] }).value;
  assert.equal(code, 'NESTING_LIMIT');
  assert.equal(fatalFlag, true);
  assert.match(message, /workflow\("c\.js"\) was called inside the nested workflow "b"/);
  assert.match(message, /one level deep/);
  assert.equal(caught.tags().filter((tag) => tag === WorkerMessage.WorkflowLoad).length, 1);

  const uncaught = await finished(`return await workflow('b.js');`, {
    load: nested('b', `return await parallel([() => workflow('c.js')]);`),
  });
  assertError(uncaught, 'NESTING_LIMIT', /nested workflow "b"/);
});

test('workflow() arguments are checked; a fatal load reply rejects with its code', async () => {
  const cases: Array<[string, string, RegExp]> = [
    [`workflow('')`, 'INVALID_ARGUMENT', /saved workflow's name or a path.*not an empty string/],
    [`workflow(7)`, 'INVALID_ARGUMENT', /not a number/],
    [`workflow('b.js', [1])`, 'INVALID_ARGUMENT', /args must be a plain object.*not an array/],
    [`workflow('b.js', 'x')`, 'INVALID_ARGUMENT', /args must be a plain object.*not a string/],
    [
      `workflow('b.js', { f: () => 1 })`,
      'RESULT_UNSERIALIZABLE',
      /workflow\(\) args\.f: a function/,
    ],
  ];
  for (const [call, code, pattern] of cases) {
    const run = session(`${call}; return 'survived';`);
    assertError(await run.done, code, pattern);
    assert.equal(
      run.tags().includes(WorkerMessage.WorkflowLoad),
      false,
      `${call} sent a workflow-load`,
    );
  }
  const refused = await finished(
    `try { await workflow('missing.js'); } catch (error) { return [error.code, error.fatal, error.message]; }`,
    {
      load: () => ({
        kind: 'fatal',
        code: 'INVALID_ARGUMENT',
        message: 'no such file: missing.js',
      }),
    },
  );
  assert.deepEqual(refused, {
    kind: 'ok',
    value: ['INVALID_ARGUMENT', true, 'no such file: missing.js'],
  });
});

test("a nested script's throw rejects the call; its value and args cross as copies", async () => {
  const thrown = await finished(
    `try { await workflow('b.js'); }
     catch (error) { return [error.message, error.fatal === true, error.stack.includes('at b/workflow-script.js:1:')]; }`,
    { load: nested('b', `throw new Error('nested boom');`) },
  );
  assert.deepEqual(thrown, { kind: 'ok', value: ['nested boom', false, true] });

  const copies = await finished(
    `const input = { items: [1] };
     const output = await workflow('b.js', input);
     output.items.push('parent');
     return { input, output, again: await workflow('b.js', input) };`,
    { load: nested('b', `args.items.push('nested'); return args;`) },
  );
  assert.deepEqual(copies, {
    kind: 'ok',
    value: {
      input: { items: [1] },
      output: { items: [1, 'nested', 'parent'] },
      again: { items: [1, 'nested'] },
    },
  });

  const unserializable = await finished(`return await workflow('b.js');`, {
    load: nested('b', `return { when: new Date(0) };`),
  });
  assertError(
    unserializable,
    'RESULT_UNSERIALIZABLE',
    /workflow\("b"\) return value\.when: a Date/,
  );

  const spinning = await finished(
    `try { await workflow('b.js'); } catch (error) { return error.message; }`,
    { load: nested('b', `while (true) {}`), limits: { syncTimeoutMs: 100 } },
  );
  assert.equal(spinning.kind, 'ok');
  assert.match(
    String((spinning as { value: unknown }).value),
    /nested workflow "b": its first synchronous slice ran longer than 100 ms/,
  );
});

test('cancel rejects a pending workflow() load and the nested run’s own calls with CANCELLED', async () => {
  const loading = session(`try { await workflow('b.js'); } catch (error) { return error.code; }`);
  await loading.sent(WorkerMessage.WorkflowLoad);
  loading.cancel('stop loading');
  assert.deepEqual(await loading.done, { kind: 'ok', value: 'CANCELLED' });

  const running = session(`try { await workflow('b.js'); } catch (error) { return error.code; }`, {
    load: nested('b', `return await agent('held');`),
  });
  await running.agentStart('held');
  running.cancel('stop running');
  assert.deepEqual(await running.done, { kind: 'ok', value: 'CANCELLED' });
});

test('a nested run that has returned refuses the calls its dropped promises make later', async () => {
  const run = session(
    `const value = await workflow('b.js');
     const late = await agent('release');
     return { value, late };`,
    {
      respond: (start) => (start.prompt === 'dropped' ? undefined : echo(start)),
      load: nested(
        'b',
        `agent('dropped').then(() => agent('too late'), () => {});
         return 'returned';`,
      ),
    },
  );
  const dropped = await run.agentStart('dropped');
  await run.agentStart('release');
  run.reply(dropped.call, { kind: 'ok', value: 'now' });
  assert.deepEqual(await run.done, { kind: 'ok', value: { value: 'returned', late: '<release>' } });
  assert.deepEqual(
    run.agentStarts().map((start) => start.prompt),
    ['dropped', 'release'],
  );
});

test('budget is frozen, reads the figures the host sent with a reply, and has no total by default', async () => {
  const run = session(
    `const before = [budget.total, budget.spent(), budget.remaining()];
    await agent('one');
    let frozen = true;
    try { budget.total = 1; budget.spent = null; } catch { frozen = Object.isFrozen(budget); }
    return { before, after: [budget.total, budget.spent(), budget.remaining()], frozen };`,
    { budgetTotal: 1000 },
  );
  const start = await run.agentStart('one');
  run.post([
    { tag: HostMessage.Budget, payload: { spent: 250, exhausted: false } },
    { tag: HostMessage.AgentResult, payload: { call: start.call, reply: echo(start) } },
  ]);
  assert.deepEqual(await run.done, {
    kind: 'ok',
    value: { before: [1000, 0, 1000], after: [1000, 250, 750], frozen: true },
  });
  const unlimited = await finished(
    `return [budget.total, budget.remaining() === Infinity, budget.remaining() > 1e300];`,
  );
  assert.deepEqual(unlimited, { kind: 'ok', value: [null, true, true] });
});

test('an exhausted budget fails pending and later hook calls with a fatal BUDGET_EXHAUSTED', async () => {
  const run = session(
    `const first = agent('held');
    let pending;
    try { await first; } catch (error) { pending = [error.code, error.fatal]; }
    let later;
    try { await agent('later'); } catch (error) { later = error.code; }
    let inParallel;
    try { await parallel([() => agent('p')]); } catch (error) { inParallel = error.code; }
    return { pending, later, inParallel, remaining: budget.remaining() };`,
    { budgetTotal: 100 },
  );
  await run.agentStart('held');
  run.post({ tag: HostMessage.Budget, payload: { spent: 120, exhausted: true } });
  assert.deepEqual(await run.done, {
    kind: 'ok',
    value: {
      pending: ['BUDGET_EXHAUSTED', true],
      later: 'BUDGET_EXHAUSTED',
      inParallel: 'BUDGET_EXHAUSTED',
      remaining: 0,
    },
  });
  assert.equal(run.agentStarts().length, 1, 'no agent-start leaves after the budget is spent');
});
