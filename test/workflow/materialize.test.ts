import assert from 'node:assert/strict';
import { test } from 'node:test';
import vm from 'node:vm';
import { WorkflowError } from '../../src/workflow/contract.js';
import {
  appendPropertyPath,
  materializeFromRealm,
  realmPrototypes,
} from '../../src/workflow/materialize.js';

const context = vm.createContext({});
const allowedPrototypes = realmPrototypes(context);

function fromRealm(expression: string): unknown {
  return vm.runInContext(`(${expression})`, context);
}

function materialize(value: unknown, maximumDepth?: number): unknown {
  return materializeFromRealm(value, { label: 'return value', allowedPrototypes, maximumDepth });
}

function rejection(expression: string): string {
  try {
    materialize(fromRealm(expression));
  } catch (error) {
    assert.ok(error instanceof WorkflowError);
    assert.equal(error.code, 'RESULT_UNSERIALIZABLE');
    assert.equal(error.fatal, true);
    return error.message;
  }
  assert.fail(`expected ${expression} to be rejected`);
}

test('realmPrototypes holds both realms’ Object and Array prototypes and null', () => {
  const [realmObject, realmArray] = fromRealm('[Object.prototype, Array.prototype]') as [
    object,
    object,
  ];
  assert.notEqual(realmObject, Object.prototype);
  assert.deepEqual(
    [...allowedPrototypes],
    [realmObject, realmArray, null, Object.prototype, Array.prototype],
  );
});

test('a realm JSON value becomes an equal value of this realm', () => {
  const value = fromRealm(
    '{ name: "n", count: 3, ok: true, none: null, list: [1, "two", { three: [3] }], nested: { a: {} } }',
  );
  const copy = materialize(value) as Record<string, unknown>;
  assert.deepEqual(copy, {
    name: 'n',
    count: 3,
    ok: true,
    none: null,
    list: [1, 'two', { three: [3] }],
    nested: { a: {} },
  });
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.equal(Object.getPrototypeOf(copy.list), Array.prototype);
  assert.ok(Array.isArray(copy.list));
  assert.notEqual(copy, value);
});

test('primitives cross as they are; -0 is kept', () => {
  assert.equal(materialize('text'), 'text');
  assert.equal(materialize(false), false);
  assert.equal(materialize(null), null);
  assert.ok(Object.is(materialize(-0), -0));
  assert.ok(Object.is((materialize(fromRealm('[-0]')) as number[])[0], -0));
});

test('a top-level undefined becomes null', () => {
  assert.equal(materialize(undefined), null);
});

test('undefined nested in an array or as a property value is rejected', () => {
  assert.equal(
    rejection('{ items: [1, undefined] }'),
    'return value.items[1]: undefined cannot leave the workflow inside an array; use null',
  );
  assert.equal(
    rejection('{ when: undefined }'),
    'return value.when: undefined cannot leave the workflow as a property value; omit the key or use null',
  );
});

test('functions, symbols and bigints are rejected with their path', () => {
  assert.equal(
    rejection('{ items: [0, 1, { when: () => 1 }] }'),
    'return value.items[2].when: a function cannot leave the workflow',
  );
  assert.equal(
    rejection('{ tag: Symbol("x") }'),
    'return value.tag: a symbol (Symbol(x)) cannot leave the workflow',
  );
  assert.match(rejection('{ big: 12n }'), /^return value\.big: a bigint \(12n\) cannot leave/);
  assert.match(rejection('function () {}'), /^return value: a function cannot leave/);
});

test('non-finite numbers are rejected', () => {
  assert.match(rejection('[NaN]'), /^return value\[0\]: NaN cannot leave the workflow/);
  assert.match(rejection('{ a: Infinity }'), /^return value\.a: Infinity cannot leave/);
  assert.match(rejection('{ a: -Infinity }'), /^return value\.a: -Infinity cannot leave/);
});

test('exotic objects are rejected with a hint', () => {
  assert.equal(
    rejection('{ index: new Map() }'),
    'return value.index: a Map cannot leave the workflow; convert it to a plain object or array',
  );
  assert.match(rejection('new Set([1])'), /^return value: a Set cannot leave/);
  assert.match(
    rejection('{ at: new Date(0) }'),
    /a Date cannot leave the workflow; convert it with toISOString\(\)/,
  );
  assert.match(
    rejection('[new String("s")]'),
    /^return value\[0\]: a boxed String cannot leave.*primitive string/,
  );
  assert.match(rejection('new Number(1)'), /a boxed Number/);
  assert.match(
    rejection('Promise.resolve(1)'),
    /a Promise cannot leave the workflow; await it first/,
  );
  assert.match(
    rejection('new Error("x")'),
    /an Error cannot leave the workflow; return its message/,
  );
  assert.match(rejection('new Uint8Array(2)'), /a Uint8Array cannot leave/);
  assert.match(rejection('/re/'), /a RegExp cannot leave/);
  assert.match(
    rejection('new (class Point { constructor() { this.x = 1 } })()'),
    /an instance of Point cannot leave/,
  );
});

test('objects from a third realm are rejected even when plain-looking', () => {
  const other = vm.runInContext('({ a: 1 })', vm.createContext({}));
  assert.throws(
    () => materialize({ other }),
    /return value\.other: an object from another realm cannot leave/,
  );
});

test('an array-like object inheriting from Array.prototype is rejected', () => {
  assert.match(
    rejection('Object.create(Array.prototype)'),
    /^return value: an object inheriting from an array cannot leave the workflow/,
  );
});

test('null-prototype objects are copied as plain objects', () => {
  const copy = materialize(fromRealm('Object.assign(Object.create(null), { a: 1 })'));
  assert.deepEqual(copy, { a: 1 });
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
});

test('a "__proto__" key stays a data key, never a prototype', () => {
  const value = fromRealm('JSON.parse(\'{"__proto__": {"polluted": true}, "a": 1}\')');
  const copy = materialize(value) as Record<string, unknown>;
  assert.ok(Object.hasOwn(copy, '__proto__'));
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.equal((copy as { polluted?: unknown }).polluted, undefined);
  assert.deepEqual(Object.getOwnPropertyDescriptor(copy, '__proto__'), {
    value: { polluted: true },
    enumerable: true,
    writable: true,
    configurable: true,
  });
});

test('getters are read and their result crosses', () => {
  const copy = materialize(fromRealm('{ get total() { return [1, 2].length }, plain: 1 }'));
  assert.deepEqual(copy, { total: 2, plain: 1 });
  assert.deepEqual(Object.getOwnPropertyDescriptor(copy, 'total'), {
    value: 2,
    enumerable: true,
    writable: true,
    configurable: true,
  });
});

test('a throwing getter fails loud with the path and the thrown message', () => {
  const message = rejection('{ items: [{ get when() { throw new RangeError("nope") } }] }');
  assert.match(message, /^return value\.items\[0\]\.when: reading it threw: RangeError: nope/);
});

test('a throwing index getter on an array fails loud too', () => {
  const message = rejection(
    '(() => { const list = [1]; Object.defineProperty(list, 0, { get() { throw "bad" }, enumerable: true }); return list })()',
  );
  assert.equal(message, 'return value[0]: reading it threw: bad');
});

test('only own enumerable string keys are copied; enumerable symbol keys are rejected', () => {
  const copy = materialize(
    fromRealm(
      '(() => { const base = { inherited: 1 }; const value = Object.create(null); Object.defineProperty(value, "hidden", { value: 1 }); value.shown = 2; Object.defineProperty(value, Symbol("quiet"), { value: 3 }); return value })()',
    ),
  );
  assert.deepEqual(copy, { shown: 2 });
  assert.equal(
    rejection('{ a: { [Symbol("tag")]: 1 } }'),
    'return value.a: a symbol key (Symbol(tag)) cannot leave the workflow',
  );
});

test('cycles are rejected with both paths', () => {
  assert.equal(
    rejection('(() => { const a = { b: { list: [] } }; a.b.list.push(a.b); return a })()'),
    'return value.b.list[0]: a cycle (back to return value.b) cannot leave the workflow',
  );
  assert.match(
    rejection('(() => { const list = []; list.push(list); return list })()'),
    /^return value\[0\]: a cycle \(back to return value\)/,
  );
});

test('a value shared by two branches is not a cycle', () => {
  const copy = materialize(
    fromRealm('(() => { const shared = { x: 1 }; return [shared, { again: shared }] })()'),
  );
  assert.deepEqual(copy, [{ x: 1 }, { again: { x: 1 } }]);
});

test('sparse arrays and named array properties are rejected', () => {
  assert.equal(
    rejection('{ list: [1, , 3] }'),
    'return value.list[1]: a hole in a sparse array cannot leave the workflow; fill it with null',
  );
  assert.match(rejection('new Array(3)'), /^return value\[0\]: a hole/);
  assert.match(
    rejection('Object.assign([1, 2], { extra: true })'),
    /^return value\.extra: a named property on an array cannot leave the workflow/,
  );
});

test('odd keys are quoted in paths', () => {
  assert.match(
    rejection('{ "odd key": [() => 1] }'),
    /^return value\["odd key"\]\[0\]: a function/,
  );
  assert.equal(appendPropertyPath('meta', 'name'), 'meta.name');
  assert.equal(appendPropertyPath('meta', '1st'), 'meta["1st"]');
  assert.equal(appendPropertyPath('meta', 2), 'meta[2]');
});

test('nesting beyond the maximum depth is rejected instead of overflowing', () => {
  const deep = fromRealm(
    '(() => { let value = 1; for (let i = 0; i < 20; i++) value = [value]; return value })()',
  );
  assert.throws(
    () => materialize(deep, 10),
    /nesting deeper than 10 levels cannot leave the workflow/,
  );
  assert.doesNotThrow(() => materialize(deep, 21));
  const veryDeep = fromRealm(
    '(() => { let value = {}; for (let i = 0; i < 100000; i++) value = { value }; return value })()',
  );
  assert.throws(() => materialize(veryDeep), /nesting deeper than 1000 levels/);
});

test('large arrays cross', () => {
  const copy = materialize(
    fromRealm('Array.from({ length: 200000 }, (_, i) => ({ i }))'),
  ) as Array<{ i: number }>;
  assert.equal(copy.length, 200000);
  assert.deepEqual(copy[199999], { i: 199999 });
});

test('a host-realm value with host prototypes is accepted too', () => {
  assert.deepEqual(materialize({ list: [1, { a: 'b' }] }), { list: [1, { a: 'b' }] });
});

function tooLarge(value: unknown, maximumBytes: number): string {
  try {
    materializeFromRealm(value, { label: 'return value', allowedPrototypes, maximumBytes });
  } catch (error) {
    assert.ok(error instanceof WorkflowError, String(error));
    assert.equal(error.code, 'RESULT_TOO_LARGE', error.message);
    assert.equal(error.fatal, true);
    return error.message;
  }
  assert.fail(`expected a value over ${maximumBytes} bytes to be refused`);
}

test('a byte limit counts exactly the UTF-8 bytes JSON.stringify gives', () => {
  const expressions = [
    '"plain"',
    '"quote \\" backslash \\\\ newline \\n tab \\t nul \\u0000 bell \\u0007"',
    '"é 漢字 🎉"',
    '"lone \\ud800 surrogate"',
    '-0',
    '1e21',
    '0.1',
    'true',
    'false',
    'null',
    '[]',
    '{}',
    '[1, [2, []], {}]',
    '{ "odd key": 1, "é": [true, null], nested: { deeper: ["x", -5.5] } }',
  ];
  for (const expression of expressions) {
    const value = fromRealm(expression);
    const bytes = Buffer.byteLength(JSON.stringify(value));
    const copy = materializeFromRealm(value, {
      label: 'return value',
      allowedPrototypes,
      maximumBytes: bytes,
    });
    assert.equal(JSON.stringify(copy), JSON.stringify(value), expression);
    tooLarge(value, bytes - 1);
  }
});

test('a value over the byte limit is refused where it passed it, naming the limit', () => {
  const value = fromRealm('{ items: Array.from({ length: 100 }, (_, i) => ({ i })) }');
  const message = tooLarge(value, 300);
  assert.match(message, /^return value is larger than 300 bytes as JSON \(maxResultBytes\)/);
  assert.match(message, /passed the limit at return value\.items\[\d+\]/);
});

test('a huge array over the byte limit is refused before it is walked', () => {
  const huge = fromRealm('Array.from({ length: 10000000 }, () => 0)');
  // Every element is at least a byte and a comma: the array itself is where it passes the limit.
  assert.match(tooLarge(huge, 16 * 1024 * 1024), /passed the limit at return value\. Return less/);
});
