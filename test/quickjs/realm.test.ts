/**
 * The shared room on its own, with the smallest use there is: a realm whose one global `send`
 * copies a value out through the prelude base's boundary and asks the host, in this thread. It
 * pins what both script engines rely on: refusals name their path, a prototype's `toJSON` never
 * changes what crosses, a pending host call settles into the realm, and the memory cap and the
 * interrupt stop a script it cannot catch.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { preludeSource } from '../../src/quickjs/prelude-base.js';
import {
  createRealmRuntime,
  type RealmRuntime,
  renderError,
  type ScriptRealm,
} from '../../src/quickjs/realm-runtime.js';

const USE = `
  function fatalError(thrown) { return hostError(thrown); }
  function renderOther(value) { return toText(value); }
  const boundary = {
    maxDepth: 4,
    omitUndefined: false,
    passes: () => false,
    tooLarge: (label, limit) => new ErrorConstructor(label + ' is over ' + limit + ' bytes'),
    refuse: (trail, problem) => new TypeErrorConstructor(renderTrail(trail) + ': ' + problem),
  };
  defineProperty(globalThis, 'send', {
    value: (value, maxBytes) => request('send', toJsonText(value, 'value', maxBytes)),
  });
  return { settle: baseInternals.settle };`;

interface Harness {
  runtime: RealmRuntime;
  realm: ScriptRealm;
  sent: string[];
  /** Runs `code` as a script; its completion value as JSON text, or its error rendered. */
  run(code: string): string;
}

async function harness(hostReply = '{"v":"ok"}', interrupt = () => false): Promise<Harness> {
  const sent: string[] = [];
  const runtime = await createRealmRuntime({
    shouldInterrupt: interrupt,
    poll: () => {},
    pollMs: 1000,
  });
  const realm = runtime.newRealm(
    preludeSource(USE),
    'use.js',
    (op, payload) => {
      sent.push(`${op} ${payload}`);
      return hostReply;
    },
    {},
  );
  if (!('context' in realm)) throw new Error(renderError(realm));
  return {
    runtime,
    realm,
    sent,
    run(code) {
      const result = realm.evaluate(`JSON.stringify((() => { ${code} })())`, 'script.js');
      if (!result.ok) return `${result.error.name}: ${result.error.message}`;
      const text = realm.context.getString(result.value);
      result.value.dispose();
      return text;
    },
  };
}

test('the boundary copies JSON out and refuses what JSON cannot hold, naming the path', async () => {
  const { run, sent } = await harness();
  assert.equal(run("return send({ a: [1, 'two', null, { b: true }] });"), '"ok"');
  assert.deepEqual(sent, ['send {"a":[1,"two",null,{"b":true}]}']);
  const refused = [
    ['{ when: new Date(0) }', 'value.when: exotic'],
    ['{ list: [1, , 3] }', 'value.list[1]: hole'],
    ['{ n: NaN }', 'value.n: number'],
    ['{ f() {} }', 'value.f: function'],
    ['{ a: { b: { c: { d: { e: 1 } } } } }', 'value.a.b.c.d: depth'],
    ['(() => { const o = {}; o.self = o; return o; })()', 'value.self: cycle'],
    ['Object.assign([1], { extra: 2 })', 'value.extra: named-key'],
    ["{ [Symbol('s')]: 1 }", 'value: symbol-key'],
  ];
  for (const [value, message] of refused) {
    assert.equal(run(`return send(${value});`), `TypeError: ${message}`, value);
  }
  assert.equal(sent.length, 1, 'no refused value reached the host');
});

test('a toJSON or an index setter the script puts on a prototype changes nothing that crosses', async () => {
  const { run, sent } = await harness();
  run(`Object.prototype.toJSON = () => 'forged';
Array.prototype.toJSON = () => 'forged';
Object.defineProperty(Array.prototype, 0, { set() { globalThis.stolen = 'a value'; } });
return send({ list: [[1], { x: 2 }] });`);
  assert.deepEqual(sent, ['send {"list":[[1],{"x":2}]}']);
});

test('a byte limit refuses a value as soon as its JSON text would pass it', async () => {
  const { run, sent } = await harness();
  assert.equal(run("return send({ text: 'x'.repeat(100) }, 50);"), 'Error: value is over 50 bytes');
  assert.deepEqual(sent, []);
});

test('a pending host call settles into the realm with a value or an error carrying its code', async () => {
  const { runtime, realm, run } = await harness('{"p":7}');
  run(`globalThis.seen = [];
send(1).then((v) => seen.push(v), (e) => seen.push(e.message + ':' + e.code));`);
  assert.equal(run('return seen;'), '[]', 'nothing settled before the host answers');
  assert.equal(
    realm.call('settle', [7, '{"e":{"message":"denied","code":"TOOL_DENIED"}}']),
    undefined,
  );
  assert.equal(runtime.pump(), undefined);
  assert.equal(run('return seen;'), '["denied:TOOL_DENIED"]');
});

test('the memory cap and the interrupt stop a script that catches everything', async () => {
  const bomb = await harness();
  bomb.runtime.capMemory(8);
  const caught = bomb.run(
    'const keep = []; try { for (;;) keep.push({ n: keep.length }); } catch { return "caught"; }',
  );
  assert.ok(bomb.runtime.overMemory, `the cap was reached (${caught})`);
  let checks = 0;
  const spin = await harness(undefined, () => {
    checks += 1;
    return checks > 3;
  });
  assert.match(spin.run('try { for (;;) {} } catch { return "caught"; }'), /interrupted/);
});
