import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowError } from '../../src/workflow/contract.js';
import { RunBudget } from '../../src/workflow/run-budget.js';

test('a budget counts every charge and tells its listeners once, after the charging caller', async () => {
  const budget = new RunBudget(100);
  const heard: number[] = [];
  budget.onExhausted(() => heard.push(budget.spent));
  budget.charge(60);
  assert.equal(budget.exhausted, false);
  assert.equal(budget.remaining(), 40);
  budget.charge(40);
  assert.equal(budget.exhausted, true);
  assert.deepEqual(heard, [], 'never inside the charge');
  budget.charge(30);
  assert.equal(budget.spent, 130, 'tokens spent after the total still count');
  assert.equal(budget.remaining(), 0);
  await Promise.resolve();
  assert.deepEqual(heard, [130]);
  budget.charge(10);
  await Promise.resolve();
  assert.deepEqual(heard, [130], 'once');
  assert.equal(budget.reason(), 'the token budget of 100 tokens is spent');
});

test('a listener removed by its undo hears nothing', async () => {
  const budget = new RunBudget(1);
  let heard = false;
  const undo = budget.onExhausted(() => {
    heard = true;
  });
  undo();
  budget.charge(5);
  await Promise.resolve();
  assert.equal(heard, false);
});

test('without a total nothing is ever exhausted and remaining is Infinity', () => {
  const budget = new RunBudget(null);
  budget.charge(Number.MAX_SAFE_INTEGER);
  assert.equal(budget.exhausted, false);
  assert.equal(budget.remaining(), Number.POSITIVE_INFINITY);
  assert.equal(budget.total, null);
});

test('a total that is not a positive whole number is refused, naming it', () => {
  for (const total of [0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(
      () => new RunBudget(total),
      (error: unknown) =>
        error instanceof WorkflowError &&
        error.code === 'INVALID_ARGUMENT' &&
        error.message.includes(`budgetTokens`) &&
        error.message.endsWith(`not ${String(total)}`),
    );
  }
});

test('zero and negative charges change nothing', () => {
  const budget = new RunBudget(10);
  budget.charge(0);
  budget.charge(-5);
  assert.equal(budget.spent, 0);
});
