import assert from 'node:assert/strict';
import { afterEach, beforeEach, mock, test } from 'node:test';
import {
  AgentClocks,
  type AgentClocksOptions,
  type AgentLimitReason,
} from '../../src/workflow/agent-clocks.js';

// Mocked timers and a mocked clock: the clocks are driven tick by tick, never by real time.
beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 }));
afterEach(() => mock.timers.reset());

function clocks(options: Omit<AgentClocksOptions, 'expire' | 'now'>) {
  const expired: AgentLimitReason[] = [];
  const subject = new AgentClocks({
    ...options,
    expire: (reason) => expired.push(reason),
    now: () => Date.now(),
  });
  return { subject, expired };
}

test('the time limit expires once, at timeoutMs, and clears its timer', () => {
  const { subject, expired } = clocks({ timeoutMs: 100 });
  assert.equal(subject.armed, true);
  mock.timers.tick(99);
  assert.deepEqual(expired, []);
  mock.timers.tick(1);
  assert.deepEqual(expired, ['timeout']);
  assert.equal(subject.armed, false);
  mock.timers.tick(1000);
  assert.deepEqual(expired, ['timeout'], 'at most once');
});

test('output and requests restart the stall clock; it expires stallMs after the last one', () => {
  const { subject, expired } = clocks({ stallMs: 100 });
  mock.timers.tick(80);
  subject.activity('output');
  mock.timers.tick(80);
  subject.activity('request');
  mock.timers.tick(99);
  assert.deepEqual(expired, [], 'each restart gives the model another stallMs');
  mock.timers.tick(1);
  assert.deepEqual(expired, ['stalled']);
  assert.equal(subject.armed, false);
});

test('an answer rests the stall clock until the next request (tools are not a stall)', () => {
  const { subject, expired } = clocks({ stallMs: 100 });
  subject.activity('output');
  subject.activity('answered');
  assert.equal(subject.armed, false, 'no timer while the child runs its tools');
  mock.timers.tick(10_000);
  assert.deepEqual(expired, []);
  subject.activity('output');
  mock.timers.tick(100);
  assert.deepEqual(expired, ['stalled'], 'output after an answer counts as waiting again');
});

test('without stallMs activity does nothing; the first clock to run out wins', () => {
  const timed = clocks({ timeoutMs: 50 });
  timed.subject.activity('request');
  mock.timers.tick(50);
  assert.deepEqual(timed.expired, ['timeout']);

  const both = clocks({ timeoutMs: 500, stallMs: 100 });
  mock.timers.tick(1000);
  assert.deepEqual(both.expired, ['stalled'], 'the stall ended it; its time limit never fires');
});

test('stop clears both timers and nothing expires afterwards', () => {
  const { subject, expired } = clocks({ timeoutMs: 100, stallMs: 100 });
  subject.stop();
  assert.equal(subject.armed, false);
  subject.activity('output');
  assert.equal(subject.armed, false, 'activity after stop sets no timer');
  mock.timers.tick(1000);
  assert.deepEqual(expired, []);
});

test('after a clock ran out, the grace timer calls back unless stop comes first', () => {
  const late = clocks({ timeoutMs: 10 });
  let abandoned = 0;
  mock.timers.tick(10);
  late.subject.afterGrace(50, () => {
    abandoned += 1;
  });
  assert.equal(late.subject.armed, true, 'the grace timer is set');
  late.subject.activity('output');
  mock.timers.tick(49);
  assert.equal(abandoned, 0);
  mock.timers.tick(1);
  assert.equal(abandoned, 1);
  assert.deepEqual(late.expired, ['timeout'], 'activity after expiry restarts nothing');
  assert.equal(late.subject.armed, false);

  const prompt = clocks({ timeoutMs: 10 });
  mock.timers.tick(10);
  prompt.subject.afterGrace(50, () => {
    abandoned += 1;
  });
  prompt.subject.stop();
  mock.timers.tick(100);
  assert.equal(abandoned, 1, 'a child that stopped in time is not abandoned');
});

test('the timers never keep the process alive', () => {
  mock.timers.reset();
  const timeouts = () =>
    process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
  const before = timeouts();
  const subject = new AgentClocks({ timeoutMs: 60_000, stallMs: 60_000, expire: () => {} });
  assert.equal(subject.armed, true);
  assert.equal(timeouts(), before, 'unreferenced timers are not active resources');
  subject.stop();
});
