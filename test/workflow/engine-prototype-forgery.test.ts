/**
 * Prototype forgery against the engine's own messages, on the engine the run names: a script
 * that changes `toJSON`, `JSON`, inherited keys or array index setters before it returns, throws
 * or calls a hook gets the true outcome, at once (no hang, no thread death, no forged code).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { echoPrompt, engineFixture, settled } from './engine-fixture.js';

async function outcome(script: string) {
  const fixture = engineFixture({ respond: echoPrompt });
  const result = await settled(fixture, fixture.start(script));
  return { result, fixture };
}

test('Object.prototype.toJSON cannot forge a SCRIPT_MEMORY ending: a plain throw stays the script error', async () => {
  const { result } = await outcome(
    `Object.prototype.toJSON = function () { return { memory: true, code: 'SCRIPT_MEMORY', fatal: true }; };
     throw new Error('plain failure');`,
  );
  assert.equal(result.stopReason, 'error');
  assert.equal(result.error?.code, 'SCRIPT_ERROR', result.error?.message);
  assert.match(result.error?.message ?? '', /plain failure/);
});

test('Object.prototype.toJSON cannot replace the returned value or the agent call on the wire', async () => {
  const { result, fixture } = await outcome(
    `Object.prototype.toJSON = function () { return [{ j: '"forged prompt"' }, { j: '{}' }]; };
     const got = await agent('the real prompt');
     return { got, list: [1, 2] };`,
  );
  assert.equal(result.stopReason, 'completed', result.error?.message);
  assert.deepEqual(result.value, { got: '<the real prompt>', list: [1, 2] });
  assert.deepEqual(
    fixture.fake.children.map((child) => child.request.prompt),
    ['the real prompt'],
  );
});

test('a toJSON returning undefined does not hang the run: the value returned is the one sent', async () => {
  const { result } = await outcome(
    `Object.prototype.toJSON = function () { return undefined; };
     log('still heard');
     return { a: 1 };`,
  );
  assert.equal(result.stopReason, 'completed', result.error?.message);
  assert.deepEqual(result.value, { a: 1 });
});

test('a recursive Array.prototype.toJSON does not kill the engine: the array returned arrives', async () => {
  const { result } = await outcome(
    `Array.prototype.toJSON = function () { return [this, this]; };
     return [1, [2, 3]];`,
  );
  assert.equal(result.stopReason, 'completed', result.error?.message);
  assert.deepEqual(result.value, [1, [2, 3]]);
});

test('replacing JSON.stringify and JSON.parse changes nothing the engine sends or reads', async () => {
  const { result } = await outcome(
    `JSON.stringify = function () { return '{"memory":true}'; };
     JSON.parse = function () { return { t: { code: 'SCRIPT_MEMORY', message: 'forged' } }; };
     const got = await agent('asked');
     return { got };`,
  );
  assert.equal(result.stopReason, 'completed', result.error?.message);
  assert.deepEqual(result.value, { got: '<asked>' });
});

test('keys inherited from Object.prototype are not read as the host’s replies', async () => {
  const { result } = await outcome(
    `for (const key of ['t', 'p', 'r', 'v', 'memory', 'interrupted', 'code', 'fatal']) {
       Object.defineProperty(Object.prototype, key, {
         get() { return key === 't' ? { code: 'SCRIPT_MEMORY', message: 'forged' } : 'forged'; },
         configurable: true,
       });
     }
     log('heard');
     const got = await agent('asked');
     return { got };`,
  );
  assert.equal(result.stopReason, 'completed', result.error?.message);
  assert.equal(JSON.stringify(result.value), '{"got":"<asked>"}');
});

test('an index setter on Array.prototype cannot change the array a script returns', async () => {
  const { result } = await outcome(
    `Object.defineProperty(Array.prototype, '0', {
       get() { return 'forged'; },
       set(_value) {},
       configurable: true,
     });
     return [1, 2];`,
  );
  assert.equal(result.stopReason, 'completed', result.error?.message);
  assert.equal(JSON.stringify(result.value), '[1,2]');
});

test('a throwing Promise.prototype.constructor does not stop the engine hearing the script end', async () => {
  const { result } = await outcome(
    `const Thrown = typeof InternalError === 'function' ? InternalError : Error;
     Object.defineProperty(Promise.prototype, 'constructor', {
       get() { throw new Thrown('out of memory'); },
       configurable: true,
     });
     return 'done';`,
  );
  assert.equal(result.stopReason, 'completed', result.error?.message);
  assert.equal(result.value, 'done');
});

test('a Promise.prototype.then that never calls back does not hang the run', async () => {
  const { result } = await outcome(
    `Promise.prototype.then = function () {};
     return { a: 1 };`,
  );
  assert.equal(result.stopReason, 'completed', result.error?.message);
  assert.deepEqual(result.value, { a: 1 });
});

test('a thrown proxy whose traps throw still ends the run as the script error', async () => {
  const { result } = await outcome(
    `throw new Proxy({}, {
       getPrototypeOf() { throw new Error('trap'); },
       get() { throw new Error('trap'); },
     });`,
  );
  assert.equal(result.stopReason, 'error');
  assert.equal(result.error?.code, 'SCRIPT_ERROR', result.error?.message);
});

test('replacing the globals String, Number, Map, Object and Math changes nothing the engine sends', async () => {
  const { result } = await outcome(
    `globalThis.String = function () { return 'forged'; };
     globalThis.Number = function () { return 0; };
     globalThis.Map = function () { return {}; };
     globalThis.Object = { prototype: Map.prototype };
     globalThis.Math = {};
     log('heard');
     return { n: 12, list: [1, 'two'], spent: budget.spent(), left: budget.remaining() > 0 };`,
  );
  assert.equal(result.stopReason, 'completed', result.error?.message);
  assert.deepEqual(result.value, { n: 12, list: [1, 'two'], spent: 0, left: true });
});
