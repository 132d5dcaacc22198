/**
 * The compiler tuning for a fan-out (src/workflow/compiler-tuning.ts): a run's
 * FAN_OUT_AGENTS-th agent raises V8's interrupt budget once per process and marks the code
 * cache variant (so bin/cached-bundle.js keeps caches made under the new flags apart); a shorter
 * run leaves V8 alone, and so does a budget the user gave Node. What it saves is the bench's
 * business (bench/workflow.bench.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import {
  CODE_CACHE_VARIANT,
  FAN_OUT_AGENTS,
  FAN_OUT_VARIANT,
} from '../../src/workflow/compiler-tuning.js';
import { echoPrompt, engineFixture, settled } from './engine-fixture.js';

const variant = () => (globalThis as Record<symbol, unknown>)[CODE_CACHE_VARIANT];

const fanOut = (agents: number) =>
  `return (await parallel(Array.from({ length: ${agents} }, (_, index) => () => agent('item ' + index)))).length;`;

test(`a run tunes the compiler at agent number ${FAN_OUT_AGENTS}, once; a shorter run does not`, async () => {
  const fixture = engineFixture({ respond: echoPrompt });
  const short = await settled(fixture, fixture.start(fanOut(FAN_OUT_AGENTS - 1)));
  assert.equal(short.value, FAN_OUT_AGENTS - 1);
  assert.equal(variant(), undefined, 'a run below the fan-out size leaves V8 as it was');
  const long = await settled(fixture, fixture.start(fanOut(FAN_OUT_AGENTS)));
  assert.equal(long.value, FAN_OUT_AGENTS);
  assert.equal(variant(), FAN_OUT_VARIANT);
});

test('a budget the user gave Node is left alone', () => {
  const moduleUrl = new URL('../../src/workflow/compiler-tuning.ts', import.meta.url).href;
  const probe = [
    `const tuning = await import(${JSON.stringify(moduleUrl)});`,
    'tuning.tuneCompilerForFanOut();',
    'process.stdout.write(String(globalThis[tuning.CODE_CACHE_VARIANT]));',
  ].join('\n');
  const run = (nodeOptions: string[]) =>
    spawnSync(
      process.execPath,
      [...nodeOptions, '--import', 'tsx', '--input-type=module', '-e', probe],
      { encoding: 'utf8' },
    );
  const chosen = run(['--interrupt-budget=1000']);
  assert.equal(chosen.status, 0, chosen.stderr);
  assert.equal(chosen.stdout, 'undefined');
  const plain = run([]);
  assert.equal(plain.status, 0, plain.stderr);
  assert.equal(plain.stdout, FAN_OUT_VARIANT);
});
