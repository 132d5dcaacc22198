import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readWorkerMessage } from '../../src/workflow/wire-check.js';

/** What the host reads after the message crossed a real port (a structured clone). */
function read(message: unknown) {
  return readWorkerMessage(structuredClone(message));
}

function assertFault(message: unknown, pattern: RegExp) {
  const reading = read(message);
  assert.ok(
    'fault' in reading,
    `accepted: ${String(JSON.stringify(reading, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)))}`,
  );
  assert.match(reading.fault, pattern);
}

test('every message the worker session sends is accepted as it is', () => {
  const good = [
    { tag: 'ready', payload: {} },
    { tag: 'agent-start', payload: { call: 1, prompt: 'p', options: {} } },
    {
      tag: 'agent-start',
      payload: {
        call: 2,
        prompt: 'p',
        options: {
          label: 'l',
          phase: 'f',
          model: 'm',
          schema: { type: 'object', required: ['a'] },
          timeoutMs: 2147483647,
        },
      },
    },
    { tag: 'phase', payload: { title: 'Gather' } },
    { tag: 'log', payload: { message: '' } },
    { tag: 'agent-start', payload: { call: 3, prompt: 'p', options: {}, workflow: 'nested' } },
    { tag: 'phase', payload: { title: 'Inner', workflow: 'nested' } },
    { tag: 'log', payload: { message: 'in', workflow: 'nested' } },
    { tag: 'workflow-load', payload: { load: 1, target: './b.js' } },
    { tag: 'done', payload: { kind: 'error', code: 'NESTING_LIMIT', message: 'm', fatal: true } },
    { tag: 'done', payload: { kind: 'ok', value: null } },
    { tag: 'done', payload: { kind: 'ok', value: { a: [1, -0, 'x', true, null, { b: {} }] } } },
    { tag: 'done', payload: { kind: 'error', message: 'boom', fatal: false } },
    { tag: 'done', payload: { kind: 'error', code: 'AGENT_CAP', message: 'cap', fatal: true } },
  ];
  for (const message of good) {
    const reading = read(message);
    assert.ok('message' in reading, JSON.stringify(reading));
    assert.deepEqual(reading.message, message);
  }
});

test('anything else is a fault that says what is wrong, never echoing the value', () => {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  const sparse = [1, 2, 3];
  delete sparse[1];
  const named = Object.assign([1], { extra: 2 });
  let deep: unknown = 'leaf';
  for (let level = 0; level < 1001; level += 1) deep = [deep];
  const cases: Array<[unknown, RegExp]> = [
    ['done', /a message that is a string, not an object/],
    [null, /a message that is null/],
    [{ tag: 'go', payload: {} }, /unknown tag "go"/],
    [{ tag: 'log', payload: { message: 'x' }, extra: 1 }, /message has an unknown key "extra"/],
    [{ tag: 'log' }, /message\.payload is missing/],
    [{ tag: 'ready', payload: { go: true } }, /payload has an unknown key "go"/],
    [{ tag: 'log', payload: { message: 10n } }, /payload\.message must be a string, not a bigint/],
    [{ tag: 'phase', payload: { title: '  ' } }, /payload\.title must not be empty/],
    [
      { tag: 'agent-start', payload: { call: 0, prompt: 'p', options: {} } },
      /payload\.call must be a positive integer/,
    ],
    [
      { tag: 'agent-start', payload: { call: 1, prompt: 'p', options: { efort: 'max' } } },
      /payload\.options has an unknown key "efort"/,
    ],
    [
      { tag: 'agent-start', payload: { call: 1, prompt: 'p', options: { effort: 'extreme' } } },
      /payload\.options\.effort must be one of low, medium, high, max/,
    ],
    [
      { tag: 'agent-start', payload: { call: 1, prompt: 'p', options: { isolation: 'copy' } } },
      /payload\.options\.isolation must be "worktree"/,
    ],
    [
      { tag: 'agent-start', payload: { call: 1, prompt: 'p', options: { agentType: ' ' } } },
      /payload\.options\.agentType must not be empty/,
    ],
    [
      { tag: 'agent-start', payload: { call: 1, prompt: 'p', options: { timeoutMs: 0.5 } } },
      /payload\.options\.timeoutMs must be a positive integer/,
    ],
    [
      { tag: 'agent-start', payload: { call: 1, prompt: 'p', options: { timeoutMs: 2 ** 31 } } },
      /payload\.options\.timeoutMs must be at most 2147483647/,
    ],
    [
      { tag: 'agent-start', payload: { call: 1, prompt: 'p', options: { schema: [] } } },
      /payload\.options\.schema must be an object, not an array/,
    ],
    [
      { tag: 'agent-start', payload: { call: 1, prompt: 'p', options: { schema: { a: 1n } } } },
      /payload\.options\.schema\["a"\] is a bigint/,
    ],
    [{ tag: 'done', payload: { kind: 'ok' } }, /payload\.value is missing/],
    [
      { tag: 'done', payload: { kind: 'ok', value: undefined } },
      /payload\.value is undefined, which JSON cannot carry/,
    ],
    [{ tag: 'done', payload: { kind: 'ok', value: Number.NaN } }, /payload\.value is NaN/],
    [{ tag: 'done', payload: { kind: 'ok', value: new Date(0) } }, /payload\.value is a Date/],
    [{ tag: 'done', payload: { kind: 'ok', value: cycle } }, /payload\.value\["self"\] is a cycle/],
    [
      { tag: 'done', payload: { kind: 'ok', value: sparse } },
      /payload\.value is an array with holes/,
    ],
    [
      { tag: 'done', payload: { kind: 'ok', value: named } },
      /payload\.value is an array with holes or named/,
    ],
    [{ tag: 'done', payload: { kind: 'ok', value: deep } }, /nests deeper than 1000 levels/],
    [
      { tag: 'done', payload: { kind: 'maybe', value: 1 } },
      /payload\.kind must be "ok" or "error"/,
    ],
    [
      { tag: 'done', payload: { kind: 'error', code: 'NOPE', message: 'm', fatal: true } },
      /payload\.code is not a workflow error code: "NOPE"/,
    ],
    [
      { tag: 'done', payload: { kind: 'error', message: 'm', fatal: 'yes' } },
      /payload\.fatal must be a boolean/,
    ],
    [
      { tag: 'agent-start', payload: { call: 1, prompt: 'p', options: { workflow: 'b' } } },
      /payload\.options has an unknown key "workflow"/,
    ],
    [
      { tag: 'agent-start', payload: { call: 1, prompt: 'p', options: {}, workflow: '' } },
      /payload\.workflow must not be empty/,
    ],
    [{ tag: 'phase', payload: { title: 'T', workflow: 7 } }, /payload\.workflow must be a string/],
    [
      { tag: 'log', payload: { message: 'm', workflow: null } },
      /payload\.workflow must be a string/,
    ],
    [{ tag: 'workflow-load', payload: { load: 1 } }, /payload\.target is missing/],
    [{ tag: 'workflow-load', payload: { target: 'b.js' } }, /payload\.load is missing/],
    [
      { tag: 'workflow-load', payload: { load: 0, target: 'b.js' } },
      /payload\.load must be a positive integer/,
    ],
    [
      { tag: 'workflow-load', payload: { load: 1.5, target: 'b.js' } },
      /payload\.load must be a positive integer/,
    ],
    [
      { tag: 'workflow-load', payload: { load: 1, target: ' ' } },
      /payload\.target must not be empty/,
    ],
    [
      { tag: 'workflow-load', payload: { load: 1, target: { path: 'b.js' } } },
      /payload\.target must be a string, not an object/,
    ],
    [
      { tag: 'workflow-load', payload: { load: 1, target: 'b.js', args: {} } },
      /payload has an unknown key "args"/,
    ],
  ];
  for (const [message, pattern] of cases) assertFault(message, pattern);
  const secret = read({ tag: 'log', payload: { message: { text: 'sk-do-not-echo' } } });
  assert.ok('fault' in secret);
  assert.doesNotMatch(secret.fault, /sk-do-not-echo/);
});
