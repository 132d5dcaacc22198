/**
 * The program engine of Code Mode (`createProgramRunner`): programs run in QuickJS in a worker
 * thread, with `tools` and `console` as their only globals besides the language's own, the
 * tool calls answered here, and the time limit, memory cap, output cap and abort enforced by the
 * engine. Every test waits on what the engine reports (a call, an outcome), never on time.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type {
  ProgramLimits,
  ProgramOutcome,
  ProgramRequest,
  ProgramRunner,
  ProgramToolAnswer,
  ProgramToolCall,
} from '../../src/code-mode/program-contract.js';
import { readProgramMessage } from '../../src/code-mode/program-protocol.js';
import { createProgramRunner } from '../../src/code-mode/program-runner.js';

const LIMITS: ProgramLimits = { timeoutMs: 10_000, memoryMb: 32, outputBytes: 10_000 };

let runner: ProgramRunner;
before(() => {
  runner = createProgramRunner({ warmThreads: 2 });
});
after(() => runner.close());

interface Fixture {
  calls: ProgramToolCall[];
  run(
    code: string,
    overrides?: Partial<Omit<ProgramRequest, 'code' | 'limits'>> & {
      limits?: Partial<ProgramLimits>;
    },
  ): Promise<ProgramOutcome>;
}

/** Runs programs whose tools answer through `answer` (default: echo the call), recording calls. */
function fixture(
  answer: (call: ProgramToolCall) => Promise<ProgramToolAnswer> = async (call) => ({
    ok: true,
    text: `${call.name}:${JSON.stringify(call.arguments)}`,
  }),
): Fixture {
  const calls: ProgramToolCall[] = [];
  return {
    calls,
    run(code, overrides = {}) {
      return runner.run({
        code,
        toolNames: ['read_file', 'grep', 'a-b'],
        signal: new AbortController().signal,
        callTool: (call) => {
          calls.push(call);
          return answer(call);
        },
        ...overrides,
        limits: { ...LIMITS, ...overrides.limits },
      });
    },
  };
}

function returned(outcome: ProgramOutcome): unknown {
  assert.equal(outcome.kind, 'returned', JSON.stringify(outcome));
  return outcome.kind === 'returned' && outcome.json !== undefined
    ? JSON.parse(outcome.json)
    : undefined;
}

test('a program returns its value as JSON and its console output', async () => {
  const { run } = fixture();
  const outcome = await run(
    "console.log('found', { files: 2 }, [1, 'x'], undefined, null, 3n);\nconsole.info(1.5);\nconsole.warn('careful');\nconsole.error(new TypeError('bad'));\nreturn { files: ['a', 'b'], total: 2 };",
  );
  assert.deepEqual(outcome, {
    kind: 'returned',
    json: '{"files":["a","b"],"total":2}',
    console: 'found {"files":2} [1,"x"] undefined null 3n\n1.5\ncareful\nTypeError: bad\n',
    truncated: false,
  });
  const nothing = await run("console.log('only output');");
  assert.deepEqual(nothing, {
    kind: 'returned',
    console: 'only output\n',
    truncated: false,
  });
  assert.equal(returned(await run("return 'text';")), 'text');
});

test('console output past the cap is cut at a character boundary and marked truncated', async () => {
  const { run } = fixture();
  const outcome = await run(
    "console.log('héllo'); console.log('wörld'); console.log('more'); return 'went on';",
    { limits: { outputBytes: 9 } },
  );
  assert.equal(outcome.kind, 'returned');
  // 'héllo\n' is 7 bytes and 'wö' 3 more: the cut at 9 falls inside 'ö', which is left out.
  assert.equal(outcome.console, 'héllo\nw');
  assert.equal(Buffer.byteLength(outcome.console), 8);
  assert.equal(outcome.truncated, true);
  assert.equal(returned(outcome), 'went on');
});

test('tool calls run concurrently, carry indexes in call order, and answer in any order', async () => {
  const held: Array<(answer: ProgramToolAnswer) => void> = [];
  let allCalled: () => void = () => {};
  const three = new Promise<void>((resolve) => {
    allCalled = resolve;
  });
  const { run, calls } = fixture(
    (call) =>
      new Promise((resolve) => {
        held[call.index] = resolve;
        if (held.filter(Boolean).length === 3) allCalled();
      }),
  );
  const outcome = run(
    "const answers = await Promise.all([tools.read_file({ path: 'a.txt' }), tools.grep({ pattern: 'x', paths: ['a', 'b'] }), tools['a-b']()]);\nreturn answers;",
  );
  await three;
  held[3]?.({ ok: true, text: 'third' });
  held[1]?.({ ok: true, text: 'first' });
  held[2]?.({ ok: true, text: 'second' });
  assert.deepEqual(returned(await outcome), ['first', 'second', 'third']);
  assert.deepEqual(calls, [
    { index: 1, name: 'read_file', arguments: { path: 'a.txt' } },
    { index: 2, name: 'grep', arguments: { pattern: 'x', paths: ['a', 'b'] } },
    { index: 3, name: 'a-b', arguments: {} },
  ]);
});

test('a refused call rejects in the program with an Error carrying the message and code', async () => {
  const { run } = fixture(async (call) =>
    call.name === 'grep'
      ? { ok: false, message: 'no such file: a.txt', code: 'NOT_FOUND' }
      : { ok: false, message: 'denied' },
  );
  const caught = await run(
    'const seen = [];\nfor (const call of [() => tools.grep({}), () => tools.read_file({})]) {\n  try { await call(); } catch (error) { seen.push([error instanceof Error, error.message, error.code ?? null]); }\n}\nreturn seen;',
  );
  assert.deepEqual(returned(caught), [
    [true, 'no such file: a.txt', 'NOT_FOUND'],
    [true, 'denied', null],
  ]);
  const uncaught = await run("await tools.grep({ pattern: 'x' });");
  assert.equal(uncaught.kind, 'threw');
  assert.match(uncaught.kind === 'threw' ? uncaught.message : '', /^Error: no such file: a\.txt/);
});

test('a toJSON the program puts on a prototype does not change the arguments the host receives', async () => {
  const { run, calls } = fixture();
  const outcome = await run(`
Object.prototype.toJSON = function () { return 'forged'; };
Array.prototype.toJSON = function () { return 'forged'; };
return await tools.read_file({ path: 'a.txt', ranges: [[1, 2]] });`);
  assert.equal(outcome.kind, 'returned');
  assert.deepEqual(
    calls.map((call) => call.arguments),
    [{ path: 'a.txt', ranges: [[1, 2]] }],
  );
});

test('an argument JSON cannot hold throws a TypeError in the program and never reaches the host', async () => {
  const { run, calls } = fixture();
  const outcome = await run(`
const cycle = {}; cycle.self = cycle;
const attempts = [
  () => tools.read_file(() => 1),
  () => tools.read_file({ path: 'a', filter() {} }),
  () => tools.grep({ limit: NaN }),
  () => tools.grep({ since: new Date(0) }),
  () => tools.grep({ nested: [1, 2n] }),
  () => tools.grep(cycle),
  () => tools['a-b']({ items: new Map() }),
];
const seen = [];
for (const attempt of attempts) {
  try { await attempt(); seen.push('called'); } catch (error) { seen.push(error.name + ': ' + error.message); }
}
return seen;`);
  const seen = returned(outcome) as string[];
  assert.equal(calls.length, 0, 'the host was never called');
  const tail =
    '; only JSON values can be passed (null, booleans, finite numbers, strings, arrays, plain objects)';
  assert.deepEqual(seen, [
    `TypeError: tools.read_file(): args is a function${tail}`,
    `TypeError: tools.read_file(): args.filter is a function${tail}`,
    `TypeError: tools.grep(): args.limit is NaN${tail}`,
    `TypeError: tools.grep(): args.since is a Date (convert it with toISOString())${tail}`,
    `TypeError: tools.grep(): args.nested[1] is a bigint${tail}`,
    `TypeError: tools.grep(): args.self is a cycle${tail}`,
    `TypeError: tools["a-b"](): args.items is a Map${tail}`,
  ]);
});

test('the program body takes top-level await and return', async () => {
  const { run } = fixture();
  const outcome = await run(
    "const text = await tools.read_file({ path: 'x' });\nif (text.startsWith('read_file')) return { length: text.length };\nreturn null;",
  );
  assert.deepEqual(returned(outcome), { length: 'read_file:{"path":"x"}'.length });
});

test('a thrown error is rendered with its name, message and only the program frames', async () => {
  const { run } = fixture();
  const outcome = await run(
    "function check(value) {\n  if (!value) throw new TypeError('value is missing');\n}\nawait null;\ncheck(0);",
  );
  assert.equal(outcome.kind, 'threw');
  const message = outcome.kind === 'threw' ? outcome.message : '';
  assert.equal(
    message,
    'TypeError: value is missing\n    at check (program.js:2:34)\n    at <anonymous> (program.js:5:6)',
  );
  const firstLine = await run('null.property; // on the first line');
  assert.match(
    firstLine.kind === 'threw' ? firstLine.message : '',
    /^TypeError: .*\n {4}at <anonymous> \(program\.js:1:5\)$/,
  );
  const plain = await run("throw { code: 'E1', detail: [1] };");
  assert.deepEqual(plain.kind === 'threw' && plain.message, '{"code":"E1","detail":[1]}');
  const syntax = await run('const = 1;');
  assert.equal(syntax.kind, 'threw');
  assert.match(syntax.kind === 'threw' ? syntax.message : '', /^SyntaxError: /);
  assert.doesNotMatch(JSON.stringify([outcome, syntax]), /program-engine|exercise/);
});

test('a return value JSON cannot hold ends the program as threw with a clear message', async () => {
  const { run } = fixture();
  const bigint = await run('return 10n;');
  assert.equal(bigint.kind, 'threw');
  assert.match(
    bigint.kind === 'threw' ? bigint.message : '',
    /^TypeError: the program returned a value JSON cannot hold: TypeError: .*BigInt/,
  );
  const fn = await run('return () => 1;');
  assert.deepEqual(
    fn.kind === 'threw' && fn.message,
    'TypeError: the program returned a function, which JSON cannot hold; return plain data',
  );
  const cycle = await run('const a = {}; a.a = a; return a;');
  assert.match(
    cycle.kind === 'threw' ? cycle.message : '',
    /JSON cannot hold: TypeError: circular/,
  );
});

test('a returned value JSON cannot hold is named with the right article: "an object"', async () => {
  const { run } = fixture();
  const object = await run('return { toJSON() { return undefined; } };');
  assert.equal(
    object.kind === 'threw' && object.message,
    'TypeError: the program returned an object, which JSON cannot hold; return plain data',
  );
  const symbol = await run("return Symbol('s');");
  assert.equal(
    symbol.kind === 'threw' && symbol.message,
    'TypeError: the program returned a symbol, which JSON cannot hold; return plain data',
  );
});

test('the time limit stops a spin and a program waiting on a call that never answers', async () => {
  const spin = await fixture().run("console.log('before');\nwhile (true) {}", {
    limits: { timeoutMs: 300 },
  });
  assert.deepEqual(spin, {
    kind: 'stopped',
    reason: 'timeout',
    message: 'the program ran longer than its time limit of 300 ms and was stopped',
    console: 'before\n',
    truncated: false,
  });
  const hanging = fixture(() => new Promise<ProgramToolAnswer>(() => {}));
  const waited = await hanging.run("console.log('waiting');\nawait tools.read_file({});", {
    limits: { timeoutMs: 300 },
  });
  assert.deepEqual(waited, {
    kind: 'stopped',
    reason: 'timeout',
    message: 'the program ran longer than its time limit of 300 ms and was stopped',
    console: 'waiting\n',
    truncated: false,
  });
  assert.equal(hanging.calls.length, 1);
});

test('the memory limit stops a program, even one that catches the out-of-memory error', async () => {
  const { run } = fixture();
  const bomb = "const kept = []; while (true) kept.push('x'.repeat(10000) + kept.length);";
  const plain = await run(bomb, { limits: { memoryMb: 8 } });
  assert.deepEqual(plain, {
    kind: 'stopped',
    reason: 'memory',
    message: 'the program used more than its memory limit of 8 MB and was stopped',
    console: '',
    truncated: false,
  });
  const caught = await run(`await null;\ntry { ${bomb} } catch (error) { return 'survived'; }`, {
    limits: { memoryMb: 8 },
  });
  assert.equal(caught.kind, 'stopped');
  assert.equal(caught.kind === 'stopped' && caught.reason, 'memory');
  // The next program on the same runner has its full limit again (a fresh realm).
  assert.equal(
    returned(await run("return 'x'.repeat(1000000).length;", { limits: { memoryMb: 8 } })),
    1000000,
  );
});

test('an abort stops a spinning program and one awaiting a call', async () => {
  const spinning = new AbortController();
  const spin = await fixture(async () => {
    spinning.abort();
    return { ok: true, text: '' };
  }).run("console.log('spinning');\ntools.read_file({});\nwhile (true) {}", {
    signal: spinning.signal,
  });
  assert.deepEqual(spin, {
    kind: 'stopped',
    reason: 'aborted',
    message: 'the program was cancelled and stopped',
    console: 'spinning\n',
    truncated: false,
  });
  const waiting = new AbortController();
  const awaited = await fixture(() => {
    waiting.abort();
    return new Promise<ProgramToolAnswer>(() => {});
  }).run('await tools.grep({});\nreturn 1;', { signal: waiting.signal });
  assert.deepEqual(awaited, {
    kind: 'stopped',
    reason: 'aborted',
    message: 'the program was cancelled and stopped',
    console: '',
    truncated: false,
  });
  const early = new AbortController();
  early.abort();
  const never = fixture();
  const before = await never.run('tools.grep({}); return 1;', { signal: early.signal });
  assert.equal(before.kind === 'stopped' && before.reason, 'aborted');
  assert.equal(never.calls.length, 0);
});

test('a second program runs to its end while the first is waiting on a call', async () => {
  let release: (answer: ProgramToolAnswer) => void = () => {};
  let called: () => void = () => {};
  const firstCalled = new Promise<void>((resolve) => {
    called = resolve;
  });
  const first = fixture(
    () =>
      new Promise((resolve) => {
        release = resolve;
        called();
      }),
  ).run("return 'first ' + (await tools.read_file({}));");
  await firstCalled;
  const second = await fixture().run("return 'second ' + (await tools.grep({ n: 2 }));");
  assert.equal(returned(second), 'second grep:{"n":2}');
  release({ ok: true, text: 'done' });
  assert.equal(returned(await first), 'first done');
});

const SECRET_NAME = 'LOOM_PROGRAM_PROBE_SECRET';
const SECRET = 'program-probe-secret-7f3a';

test('hostile probes find no process, environment, module loader or port', async () => {
  process.env[SECRET_NAME] = SECRET;
  try {
    const { run, calls } = fixture();
    const outcome = await run(`
const found = {};
const attempt = (name, action) => {
  try { found[name] = String(action()); } catch (error) { found[name] = 'threw ' + error.name; }
};
attempt('toolConstructor', () => tools.read_file.constructor('return typeof process')());
attempt('consoleConstructor', () => console.log.constructor('return typeof require')());
attempt('functionThis', () => typeof Function('return this')().process);
attempt('env', () => Function('return process.env.${SECRET_NAME}')());
attempt('postMessage', () => typeof postMessage + typeof globalThis.postMessage + typeof hostCall);
Error.prepareStackTrace = (error, frames) => frames[0].getThis().process;
attempt('prepareStackTrace', () => typeof new Error('x').stack);
try { await import('node:fs'); found.importFs = 'imported'; } catch (error) { found.importFs = 'threw ' + error.name; }
const builtins = ${JSON.stringify(QUICKJS_GLOBALS)};
found.extraGlobals = Object.getOwnPropertyNames(globalThis).filter((name) => !builtins.includes(name)).join(',');
found.toolsFrozen = Object.isFrozen(tools) && Object.isFrozen(console);
// Text shaped like the host's own messages is only text.
console.log(JSON.stringify({ type: 'done', run: 1, outcome: { kind: 'returned', json: '"forged"', console: '', truncated: false } }));
await tools.grep({ type: 'done', run: 1, index: 1, outcome: { kind: 'returned', json: '"forged"' } });
return found;`);
    const found = returned(outcome) as Record<string, unknown>;
    assert.deepEqual(found, {
      toolConstructor: 'undefined',
      consoleConstructor: 'undefined',
      functionThis: 'undefined',
      env: 'threw ReferenceError',
      postMessage: 'undefinedundefinedundefined',
      prepareStackTrace: 'string',
      importFs: 'threw ReferenceError',
      extraGlobals: 'tools,console',
      toolsFrozen: true,
    });
    assert.equal(calls.length, 1, 'the forged message was an argument of one real call');
    assert.ok(!JSON.stringify(outcome).includes(SECRET));
  } finally {
    delete process.env[SECRET_NAME];
  }
});

test('the host reads only well-formed thread messages', () => {
  assert.deepEqual(
    readProgramMessage({ type: 'call', run: 1, index: 1, name: 'x', arguments: '{}' }),
    {
      type: 'call',
      run: 1,
      index: 1,
      name: 'x',
      arguments: '{}',
    },
  );
  for (const forged of [
    null,
    'done',
    { type: 'call', run: 1, index: 1, name: 'x', arguments: {} },
    { type: 'done', run: 1, outcome: { kind: 'returned', console: 1, truncated: false } },
    {
      type: 'done',
      run: 1,
      outcome: { kind: 'stopped', reason: 'crashed', message: '', console: '', truncated: false },
    },
    { type: 'spawn', run: 1 },
    { type: 'done', run: -1, outcome: { kind: 'returned', console: '', truncated: false } },
  ]) {
    assert.equal(readProgramMessage(forged), undefined, JSON.stringify(forged));
  }
});

test('a request with bad limits, and a run on a closed runner, end with a clear message', async () => {
  const bad = await fixture().run('return 1;', { limits: { timeoutMs: -5 } });
  assert.deepEqual(bad, {
    kind: 'threw',
    message: 'run_code: limits.timeoutMs must be a positive number of milliseconds, not -5',
    console: '',
    truncated: false,
  });
  const closing = createProgramRunner({ warmThreads: 0 });
  let started: () => void = () => {};
  const waiting = new Promise<void>((resolve) => {
    started = resolve;
  });
  const running = closing.run({
    code: 'await tools.wait({});',
    toolNames: ['wait'],
    limits: LIMITS,
    signal: new AbortController().signal,
    callTool: () => {
      started();
      return new Promise<ProgramToolAnswer>(() => {});
    },
  });
  await waiting;
  await closing.close();
  const outcome = await running;
  assert.equal(outcome.kind === 'stopped' && outcome.reason, 'aborted');
  const after = await closing.run({
    code: 'return 1;',
    toolNames: [],
    limits: LIMITS,
    signal: new AbortController().signal,
    callTool: async () => ({ ok: true, text: '' }),
  });
  assert.deepEqual(after.kind === 'threw' && after.message, 'the program runner is closed');
});

/** The globals of a fresh QuickJS context (this build): what a program finds besides its two. */
const QUICKJS_GLOBALS = [
  'Error',
  'EvalError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'TypeError',
  'URIError',
  'InternalError',
  'AggregateError',
  'Array',
  'Object',
  'Function',
  'Iterator',
  'parseInt',
  'parseFloat',
  'isNaN',
  'isFinite',
  'decodeURI',
  'decodeURIComponent',
  'encodeURI',
  'encodeURIComponent',
  'escape',
  'unescape',
  'Infinity',
  'NaN',
  'undefined',
  'eval',
  'Number',
  'Boolean',
  'String',
  'Math',
  'Reflect',
  'Symbol',
  'globalThis',
  'BigInt',
  'Date',
  'RegExp',
  'JSON',
  'Proxy',
  'Map',
  'Set',
  'WeakMap',
  'WeakSet',
  'ArrayBuffer',
  'SharedArrayBuffer',
  'Uint8ClampedArray',
  'Int8Array',
  'Uint8Array',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'BigInt64Array',
  'BigUint64Array',
  'Float16Array',
  'Float32Array',
  'Float64Array',
  'DataView',
  'Promise',
  'WeakRef',
  'FinalizationRegistry',
];
