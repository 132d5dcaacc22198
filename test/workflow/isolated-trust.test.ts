/**
 * The hostile probes of issue 16 against the isolated engine: whatever a script does with the
 * objects it is given (hooks, caught hook errors, `args`, `parallel`'s results, the stack-trace
 * hook) or however it looks for a port, it finds no `process`, no environment variable and no
 * way to post to the host. Each probe runs the real engine in a worker and checks both what the
 * script found and what the host saw.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { echoPrompt, engineFixture, settled } from './engine-fixture.js';

const SECRET_NAME = 'LOOM_ISOLATED_PROBE_SECRET';
const SECRET = 'probe-secret-0c1d4e';

before(() => {
  process.env[SECRET_NAME] = SECRET;
});
after(() => {
  delete process.env[SECRET_NAME];
});

/**
 * In-script: everything `start` leads to when it is called as a function constructor: typeof
 * `process`, `require`, `globalThis.process`, and the environment variable, or the error text.
 */
const REACH = `
function reach(start) {
  const found = {};
  const attempts = {
    process: "return typeof process",
    require: "return typeof require",
    globalProcess: "return typeof globalThis.process",
    env: "return process.env.${SECRET_NAME}",
  };
  for (const [name, body] of Object.entries(attempts)) {
    try {
      const Maker = start.constructor.constructor === Function ? start.constructor.constructor : start.constructor;
      found[name] = String(Maker(body)());
    } catch (error) {
      found[name] = 'threw ' + error.name;
    }
  }
  return found;
}`;

const unreachable = {
  process: 'undefined',
  require: 'undefined',
  globalProcess: 'undefined',
  env: 'threw ReferenceError',
};

async function probe(script: string) {
  const fixture = engineFixture({ respond: echoPrompt, service: { engine: 'isolated' } });
  const result = await settled(fixture, fixture.start(`${REACH}\n${script}`, { args: { n: 1 } }));
  assert.equal(result.stopReason, 'completed', result.error?.message);
  const seen = JSON.stringify({ result, events: fixture.events.records });
  assert.ok(!seen.includes(SECRET), 'the environment never reaches the result or an event');
  assert.ok(
    fixture.events.records.every((record) => !/protocol fault/.test(JSON.stringify(record))),
    'the host saw no forged message',
  );
  return { result, fixture };
}

test("agent.constructor.constructor('return process')() reaches no process", async () => {
  const { result } = await probe(`
    let direct;
    try { direct = typeof agent.constructor.constructor('return process')(); }
    catch (error) { direct = 'threw ' + error.name + ': ' + error.message; }
    return { direct, found: reach(agent) };`);
  assert.deepEqual(result.value, {
    direct: "threw ReferenceError: 'process' is not defined",
    found: unreachable,
  });
});

test('log.constructor is the realm’s own Function: its global holds only the hooks and the language', async () => {
  const { result } = await probe(`
    const realmGlobal = log.constructor('return globalThis')();
    const names = Object.getOwnPropertyNames(realmGlobal);
    const host = ['process', 'require', 'module', 'Buffer', 'setTimeout', 'setImmediate', 'fetch',
      'console', 'postMessage', 'WebAssembly', 'importScripts', 'global', 'navigator'];
    return {
      same: realmGlobal === globalThis,
      hooks: ['agent', 'parallel', 'pipeline', 'phase', 'log', 'args', 'budget', 'workflow'].filter((name) => names.includes(name)),
      host: host.filter((name) => names.includes(name)),
      found: reach(log),
    };`);
  assert.deepEqual(result.value, {
    same: true,
    hooks: ['agent', 'parallel', 'pipeline', 'phase', 'log', 'args', 'budget', 'workflow'],
    host: [],
    found: unreachable,
  });
});

test('a caught hook error is a realm value: it leads to no process', async () => {
  const { result } = await probe(`
    let caught;
    try { agent(42); } catch (error) { caught = error; }
    const prototypes = [];
    for (let object = caught; object; object = Object.getPrototypeOf(object)) prototypes.push(object.constructor.name);
    return { code: caught.code, fatal: caught.fatal, prototypes, found: reach(caught), stack: caught.stack.includes('workflow-engine') };`);
  assert.deepEqual(result.value, {
    code: 'INVALID_ARGUMENT',
    fatal: true,
    prototypes: ['WorkflowError', 'WorkflowError', 'Error', 'Object'],
    found: unreachable,
    stack: false,
  });
});

test('args is a JSON copy in the realm: it leads to no process', async () => {
  const { result } = await probe(`
    args.n = 2;
    return { n: args.n, plain: Object.getPrototypeOf(args) === Object.prototype, found: reach(args), viaProto: reach(args.__proto__) };`);
  assert.deepEqual(result.value, {
    n: 2,
    plain: true,
    found: unreachable,
    viaProto: unreachable,
  });
});

test("parallel's results and an agent's value lead to no process", async () => {
  const { result } = await probe(`
    const results = await parallel([() => agent('a'), () => 'b']);
    const answer = await agent('c');
    return { results, array: reach(results), item: reach(results[0]), answer: reach(answer), promise: reach(parallel([])) };`);
  assert.deepEqual(result.value, {
    results: ['<a>', 'b'],
    array: unreachable,
    item: unreachable,
    answer: unreachable,
    promise: unreachable,
  });
});

test('Error.prepareStackTrace sees no host file, host function or host object', async () => {
  const { result } = await probe(`
    const files = [];
    const reached = [];
    Error.prepareStackTrace = (error, frames) => {
      if (!Array.isArray(frames)) return 'replaced';
      for (const frame of frames) {
        files.push(String(frame.getFileName?.()));
        for (const get of ['getThis', 'getFunction']) {
          try { const value = frame[get]?.(); if (value) reached.push(reach(value)); } catch {}
        }
      }
      return 'replaced';
    };
    await parallel([() => { try { null.x; } catch (error) { void error.stack; throw error; } }]);
    await pipeline([1], () => { try { undefined.y; } catch (error) { void error.stack; throw error; } });
    try { agent(''); } catch (error) { void error.stack; }
    return {
      hostFiles: files.filter((file) => /[\\/]|^node:/.test(file)),
      reached: reached.filter((found) => found.process !== 'undefined' || found.require !== 'undefined'),
      found: reach(Error),
    };`);
  assert.deepEqual(result.value, { hostFiles: [], reached: [], found: unreachable });
});

test('forged messages: the script finds no port to post on, and the host hears only the hooks', async () => {
  const { result, fixture } = await probe(`
    const tries = {};
    const candidates = {
      postMessage: () => postMessage({ tag: 'done', payload: { kind: 'ok', value: 'forged' } }),
      parentPort: () => parentPort.postMessage({ tag: 'log', payload: { message: 'forged' } }),
      require: () => require('node:worker_threads'),
      getBuiltinModule: () => process.getBuiltinModule('node:worker_threads'),
      hostCall: () => hostCall('log', '[{"j":"\\\\"forged\\\\""}]'),
      viaConstructor: () => log.constructor('return process')().getBuiltinModule('node:worker_threads').parentPort.postMessage({ tag: 'log', payload: { message: 'forged' } }),
    };
    for (const [name, attempt] of Object.entries(candidates)) {
      try { attempt(); tries[name] = 'reached'; } catch (error) { tries[name] = error.name; }
    }
    let imported;
    // A literal import() is refused before the run starts; one made at run time finds no loader.
    try { await Function("return import('node:worker_threads')")(); imported = 'reached'; } catch (error) { imported = 'refused'; }
    log('only this');
    return { tries, imported };`);
  assert.deepEqual(result.value, {
    tries: {
      postMessage: 'ReferenceError',
      parentPort: 'ReferenceError',
      require: 'ReferenceError',
      getBuiltinModule: 'ReferenceError',
      hostCall: 'ReferenceError',
      viaConstructor: 'ReferenceError',
    },
    imported: 'refused',
  });
  assert.deepEqual(
    fixture.events.records.map((record) => record.type),
    ['workflow/start', 'workflow/log', 'workflow/end'],
  );
});

async function ending(script: string) {
  const fixture = engineFixture({ respond: echoPrompt, service: { engine: 'isolated' } });
  return settled(fixture, fixture.start(script));
}

test("a script's own InternalError('out of memory') or ('interrupted') is a thrown value, not the engine's ending", async () => {
  for (const text of ['out of memory', 'interrupted']) {
    const result = await ending(`throw new InternalError(${JSON.stringify(text)});`);
    assert.equal(result.stopReason, 'error');
    assert.equal(result.error?.code, 'SCRIPT_ERROR', result.error?.message);
    assert.match(result.error?.message ?? '', new RegExp(`InternalError: ${text}`));
  }
});

test("rewriting a caught engine error's code and message does not forge the run's ending", async () => {
  const result = await ending(
    `try { agent('x', Object.assign({}, { bogus: 1 })); } catch (error) {
       error.code = 'SCRIPT_MEMORY';
       error.message = 'forged';
       throw error;
     }`,
  );
  assert.equal(result.stopReason, 'error');
  assert.equal(result.error?.code, 'UNSUPPORTED_OPTION');
  assert.match(result.error?.message ?? '', /agent\(\) has no option "bogus"/);
});
