import assert from 'node:assert/strict';
import { test } from 'node:test';
import vm from 'node:vm';
import {
  nestedScriptFilename,
  placeScriptFrames,
  RENDERED_THROWN_MAXIMUM_LENGTH,
  renderThrown,
  SCRIPT_FILENAME,
  UNRENDERABLE_THROWN_VALUE,
} from '../../src/workflow/render-thrown.js';

test('an error renders as its stack, which names the message', () => {
  const rendered = renderThrown(new TypeError('bad input'));
  assert.match(rendered, /^TypeError: bad input\n\s+at /);
});

test('an error thrown inside a vm realm renders the same way', () => {
  const thrown = vm.runInContext(
    'try { null.x } catch (error) { error }',
    vm.createContext({}),
  ) as unknown;
  assert.match(renderThrown(thrown), /^TypeError: Cannot read properties of null/);
});

test('an object without a stack renders its message', () => {
  assert.equal(renderThrown({ message: 'plain message' }), 'plain message');
  assert.equal(renderThrown({ stack: '', message: 'empty stack skipped' }), 'empty stack skipped');
  assert.equal(
    renderThrown({ stack: 42, message: 'non-string stack skipped' }),
    'non-string stack skipped',
  );
});

test('primitives and odd values render with String()', () => {
  assert.equal(renderThrown('just a string'), 'just a string');
  assert.equal(renderThrown(42), '42');
  assert.equal(renderThrown(null), 'null');
  assert.equal(renderThrown(undefined), 'undefined');
  assert.equal(renderThrown(Symbol('tag')), 'Symbol(tag)');
  assert.equal(renderThrown(10n), '10');
  assert.equal(renderThrown({ toString: () => 'custom' }), 'custom');
});

test('a value whose every rendering throws gets the fixed label', () => {
  const hostile = {
    get stack(): string {
      throw new Error('stack getter');
    },
    get message(): string {
      throw new Error('message getter');
    },
    toString(): string {
      throw new Error('toString');
    },
  };
  assert.equal(renderThrown(hostile), UNRENDERABLE_THROWN_VALUE);
  assert.equal(renderThrown(Object.create(null)), UNRENDERABLE_THROWN_VALUE);
});

test('proxies whose traps throw and revoked proxies never make it throw', () => {
  const trapping = new Proxy(
    {},
    {
      get() {
        throw new Error('trap');
      },
    },
  );
  assert.equal(renderThrown(trapping), UNRENDERABLE_THROWN_VALUE);
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  assert.equal(renderThrown(proxy), UNRENDERABLE_THROWN_VALUE);
});

test('a throwing stack getter falls back to the message', () => {
  const value = {
    get stack(): string {
      throw new Error('no');
    },
    message: 'fallback',
  };
  assert.equal(renderThrown(value), 'fallback');
});

test('long renderings are capped', () => {
  const rendered = renderThrown('x'.repeat(RENDERED_THROWN_MAXIMUM_LENGTH + 500));
  assert.ok(rendered.startsWith('x'.repeat(RENDERED_THROWN_MAXIMUM_LENGTH)));
  assert.ok(rendered.endsWith('… (500 more characters)'));
  assert.ok(rendered.length < RENDERED_THROWN_MAXIMUM_LENGTH + 40);
});

test('a function renders as its name, never its source', () => {
  function secretHelper() {
    return 'source text';
  }
  assert.equal(renderThrown(secretHelper), '[function secretHelper]');
  assert.equal(
    renderThrown(() => 1),
    '[function]',
  );
  const hostileName = Object.defineProperty(() => 1, 'name', {
    get() {
      throw new Error('no name');
    },
  });
  assert.equal(renderThrown(hostileName), '[function]');
});

test('placeScriptFrames names each compiled script by its file, the nested name before the top one', () => {
  const text =
    'Error: boom\n    at inner (b/workflow-script.js:3:5)\n    at workflow-script.js:7:1\n    at main (workflow-script.js:9:2)';
  assert.equal(
    placeScriptFrames(text, [
      { compiledAs: nestedScriptFilename('b'), path: '/work/flows/b.js' },
      { compiledAs: SCRIPT_FILENAME, path: '/work/top.js' },
    ]),
    'Error: boom\n    at inner (/work/flows/b.js:3:5)\n    at /work/top.js:7:1\n    at main (/work/top.js:9:2)',
  );
  assert.equal(
    placeScriptFrames('see workflow-script.js for details', []),
    'see workflow-script.js for details',
  );
});
