import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LoomError } from '../../src/base/errors.js';
import {
  Context,
  defineEmit,
  defineSerial,
  defineWaterfall,
  serviceKey,
} from '../../src/core/context.js';

const observed = defineEmit<string>('test/observed');
const wrapped = defineWaterfall<string, string>('test/wrapped');
const folded = defineSerial<string, string[]>('test/folded');
const counterKey = serviceKey<{ count: number }>('test/counter');

function recordingContext() {
  const reports: { hook: string; message: string }[] = [];
  let onReport = () => {};
  const context = new Context({
    name: 'root',
    reportListenerError: ({ hook, error }) => {
      reports.push({ hook, message: (error as Error).message });
      onReport();
    },
  });
  const reported = (count: number) =>
    new Promise<void>((resolve) => {
      onReport = () => {
        if (reports.length >= count) resolve();
      };
      onReport();
    });
  return { context, reports, reported };
}

test('emit: a throwing and a rejecting listener are reported and the others still run', async () => {
  const { context, reports, reported } = recordingContext();
  const seen: string[] = [];
  context.on(observed, (payload) => {
    seen.push(`first ${payload}`);
  });
  context.on(observed, () => {
    throw new Error('thrown');
  });
  context.on(observed, async () => {
    throw new Error('rejected');
  });
  context.on(observed, (payload) => {
    seen.push(`last ${payload}`);
  });
  assert.doesNotThrow(() => context.emit(observed, 'x'));
  assert.deepEqual(seen, ['first x', 'last x']);
  await reported(2);
  assert.deepEqual(reports, [
    { hook: 'test/observed', message: 'thrown' },
    { hook: 'test/observed', message: 'rejected' },
  ]);
});

test('emit: a rejecting thenable that is not a native promise is still reported', async () => {
  const { context, reports, reported } = recordingContext();
  const foreign = {
    // biome-ignore lint/suspicious/noThenProperty: the point is a thenable from another realm.
    then(_resolve: unknown, reject: (error: unknown) => void) {
      reject(new Error('foreign'));
    },
  };
  context.on(observed, () => foreign as unknown as Promise<void>);
  context.emit(observed, 'x');
  await reported(1);
  assert.deepEqual(reports, [{ hook: 'test/observed', message: 'foreign' }]);
});

test('emit: a throwing reporter cannot break the emitter', () => {
  const context = new Context({
    reportListenerError: () => {
      throw new Error('reporter broke');
    },
  });
  context.on(observed, () => {
    throw new Error('listener broke');
  });
  assert.doesNotThrow(() => context.emit(observed, 'x'));
});

test('waterfall: middleware wraps in registration order and may rewrite the input', async () => {
  const context = new Context();
  const trace: string[] = [];
  context.use(wrapped, async (input, next) => {
    trace.push(`outer saw ${input}`);
    return `outer(${await next(`${input}+outer`)})`;
  });
  context.use(wrapped, async (input, next) => {
    trace.push(`inner saw ${input}`);
    return `inner(${await next(`${input}+inner`)})`;
  });
  const output = await context.run(wrapped, 'start', (input) => {
    trace.push(`terminal saw ${input}`);
    return 'done';
  });
  assert.equal(output, 'outer(inner(done))');
  assert.deepEqual(trace, [
    'outer saw start',
    'inner saw start+outer',
    'terminal saw start+outer+inner',
  ]);
});

test('waterfall: a middleware that does not call next short-circuits the rest', async () => {
  const context = new Context();
  let laterRan = false;
  let terminalRan = false;
  context.use(wrapped, () => 'short');
  context.use(wrapped, (input, next) => {
    laterRan = true;
    return next(input);
  });
  const output = await context.run(wrapped, 'x', () => {
    terminalRan = true;
    return 'terminal';
  });
  assert.equal(output, 'short');
  assert.equal(laterRan, false);
  assert.equal(terminalRan, false);
});

test('waterfall: a synchronous throw in middleware becomes a rejection', async () => {
  const context = new Context();
  context.use(wrapped, () => {
    throw new Error('middleware broke');
  });
  await assert.rejects(
    context.run(wrapped, 'x', () => 'never'),
    /middleware broke/,
  );
});

test('serial: handlers run in order, each awaited, folding the value', async () => {
  const parent = new Context();
  const child = parent.child('child');
  parent.handle(folded, async (input, value) => [...value, `parent ${input}`]);
  child.handle(folded, (input, value) => [...value, `child ${input}`]);
  child.handle(folded, async (_input, value) => {
    await Promise.resolve();
    return [...value, 'last'];
  });
  assert.deepEqual(await child.serial(folded, 'go', ['initial']), [
    'initial',
    'parent go',
    'child go',
    'last',
  ]);
  assert.deepEqual(await parent.serial(folded, 'go', []), ['parent go']);
});

test('disposers are idempotent, and one function registered twice has two disposers', () => {
  const context = new Context();
  const calls: string[] = [];
  const listener = (payload: string) => {
    calls.push(payload);
  };
  const first = context.on(observed, listener);
  const second = context.on(observed, listener);
  context.emit(observed, 'both');
  second();
  second();
  context.emit(observed, 'one');
  first();
  first();
  context.emit(observed, 'none');
  assert.deepEqual(calls, ['both', 'both', 'one']);
});

test('a service disposer is idempotent even after the same service is provided again', () => {
  const context = new Context();
  const counter = { count: 0 };
  const dispose = context.provide(counterKey, counter);
  dispose();
  context.provide(counterKey, counter);
  dispose();
  assert.equal(context.get(counterKey), counter);
});

test('child scopes shadow services for themselves and inherit listeners', async () => {
  const parent = new Context({ name: 'parent' });
  const child = parent.child('child');
  const outer = { count: 1 };
  const inner = { count: 2 };
  parent.provide(counterKey, outer);
  assert.equal(child.get(counterKey), outer);
  const undo = child.provide(counterKey, inner);
  assert.equal(child.get(counterKey), inner);
  assert.equal(parent.get(counterKey), outer);
  undo();
  assert.equal(child.get(counterKey), outer);

  const seen: string[] = [];
  parent.on(observed, (payload) => {
    seen.push(`parent ${payload}`);
  });
  child.on(observed, (payload) => {
    seen.push(`child ${payload}`);
  });
  child.emit(observed, 'a');
  parent.emit(observed, 'b');
  assert.deepEqual(seen, ['parent a', 'child a', 'parent b']);

  parent.use(wrapped, async (input, next) => `parent(${await next(input)})`);
  child.use(wrapped, async (input, next) => `child(${await next(input)})`);
  assert.equal(await child.run(wrapped, 'x', (input) => input), 'parent(child(x))');
});

test('SERVICE_TAKEN on a second claim in one scope, SERVICE_MISSING when nobody provides', () => {
  const context = new Context({ name: 'agent-1' });
  context.provide(counterKey, { count: 0 });
  assert.throws(
    () => context.provide(counterKey, { count: 1 }),
    (error: unknown) =>
      error instanceof LoomError &&
      error.code === 'SERVICE_TAKEN' &&
      /test\/counter/.test(error.message),
  );
  const empty = new Context({ name: 'empty' });
  assert.equal(empty.find(counterKey), undefined);
  assert.throws(
    () => empty.get(counterKey),
    (error: unknown) =>
      error instanceof LoomError && error.code === 'SERVICE_MISSING' && /empty/.test(error.message),
  );
});

test('a listener added during emit does not run in that emit (the chain is a snapshot)', () => {
  const context = new Context();
  const seen: string[] = [];
  context.on(observed, () => {
    context.on(observed, (payload) => {
      seen.push(`late ${payload}`);
    });
  });
  context.emit(observed, 'first');
  assert.deepEqual(seen, []);
});
