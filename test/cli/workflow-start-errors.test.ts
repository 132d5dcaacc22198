import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runWorkflow, writeFile, writeJson } from './workflow-fixture.js';

const GOOD_BODY = `const answer = await agent('say hi', { label: 'hi' });
return { answer };
`;

function setup() {
  const home = temporaryFolder();
  const model = `scripted:${writeJson(home, 'model.json', { rules: [], default: { reply: 'hi' } })}`;
  return { home, model };
}

/** Runs `workflow run` and `workflow check` on the same input: both must refuse it with exit 2. */
async function bothRefuse(home: string, model: string, file: string, extra: string[] = []) {
  const run = await runWorkflow(['run', file, '--model', model, '--json', ...extra], { home });
  assert.equal(run.code, 2, `run: ${run.stderr}`);
  const object = JSON.parse(run.stdout) as { error?: unknown; code?: unknown };
  assert.equal(typeof object.error, 'string', 'a run that could not start prints its error object');
  assert.equal(typeof object.code, 'string', run.stdout);
  const check = await runWorkflow(['check', file, ...extra], { home });
  assert.equal(check.code, 2, `check: ${check.stderr}`);
  assert.equal(check.stdout, '');
  return { run: run.stderr, check: check.stderr };
}

test('workflow check: a valid script with its header prints ok and the name, needing no model', async () => {
  const { home } = setup();
  const file = writeFile(
    home,
    'ok.js',
    `export const meta = { name: 'greeter', description: 'Says hi', phases: [{ title: 'hi' }] };\n${GOOD_BODY}`,
  );
  const check = await runWorkflow(['check', file], { home });
  assert.equal(check.code, 0, check.stderr);
  assert.equal(check.stdout, 'ok: greeter\n');
  assert.equal(existsSync(join(home, 'sessions')), false, 'check runs nothing');
});

test('workflow check: --meta supplies meta for a bare body', async () => {
  const { home } = setup();
  const file = writeFile(home, 'bare.js', GOOD_BODY);
  const meta = JSON.stringify({ name: 'bare', description: 'No header' });
  const check = await runWorkflow(['check', file, '--meta', meta], { home });
  assert.equal(check.code, 0, check.stderr);
  assert.equal(check.stdout, 'ok: bare\n');
});

test('workflow check: the example review workflow is valid', async () => {
  const { home } = setup();
  const check = await runWorkflow(['check', join(process.cwd(), 'examples/workflows/review.js')], {
    home,
  });
  assert.equal(check.code, 0, check.stderr);
  assert.equal(check.stdout, 'ok: review\n');
});

test('workflow run/check: bad meta exits 2 naming the field', async () => {
  const { home, model } = setup();
  const file = writeFile(
    home,
    'bad-meta.js',
    `export const meta = { name: 'x', description: 'y', colour: 'red', phases: [{ titel: 'a' }] };\n${GOOD_BODY}`,
  );
  const { run, check } = await bothRefuse(home, model, file);
  for (const stderr of [run, check]) {
    assert.match(stderr, /META_INVALID/);
    assert.match(stderr, /meta\.colour/);
    assert.match(stderr, /meta\.phases\[0\]\.titel/);
  }
});

test('workflow run/check: bad --meta exits 2 naming the field', async () => {
  const { home, model } = setup();
  const file = writeFile(home, 'bare.js', GOOD_BODY);
  const { run } = await bothRefuse(home, model, file, ['--meta', '{"name":"x"}']);
  assert.match(run, /META_INVALID/);
  assert.match(run, /meta\.description/);
  const notJson = await bothRefuse(home, model, file, ['--meta', '{name: x}']);
  assert.match(notJson.run, /--meta.*not valid JSON/);
});

test('workflow run/check: a missing meta exits 2 saying meta is required', async () => {
  const { home, model } = setup();
  const file = writeFile(home, 'bare.js', GOOD_BODY);
  const { run, check } = await bothRefuse(home, model, file);
  for (const stderr of [run, check]) assert.match(stderr, /no meta: pass --meta/);
});

test('workflow run/check: a syntax error exits 2 with the line and column in the file', async () => {
  const { home, model } = setup();
  const file = writeFile(
    home,
    'broken.js',
    [
      'export const meta = {',
      "  name: 'broken',",
      "  description: 'Does not parse',",
      '};',
      "const a = await agent('x');",
      'const b = ;',
      'return a;',
    ].join('\n'),
  );
  const { run, check } = await bothRefuse(home, model, file);
  for (const stderr of [run, check]) {
    assert.match(stderr, /SCRIPT_PARSE/);
    assert.match(stderr, /6:11/, 'the position is counted in the file, header included');
    assert.match(stderr, /const b = ;/);
  }
});

test('workflow run/check: a header that is not a pure literal exits 2', async () => {
  const { home, model } = setup();
  const file = writeFile(
    home,
    'computed.js',
    `export const meta = { name: 'n' + 'ame', description: process.env.HOME };\n${GOOD_BODY}`,
  );
  const { run, check } = await bothRefuse(home, model, file);
  for (const stderr of [run, check]) {
    assert.match(stderr, /META_INVALID/);
    assert.match(stderr, /pure literal/);
    assert.match(stderr, /1:29/);
  }
});

test('workflow run: --args that is not a JSON object exits 2', async () => {
  const { home, model } = setup();
  const file = writeFile(
    home,
    'ok.js',
    `export const meta = { name: 'ok', description: 'fine' };\n${GOOD_BODY}`,
  );
  for (const [value, kind] of [
    ['5', 'a number'],
    ['[1, 2]', 'an array'],
    ['"text"', 'a string'],
    ['null', 'null'],
  ] as const) {
    const run = await runWorkflow(['run', file, '--model', model, '--args', value], { home });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, new RegExp(`--args must be a JSON object \\(got ${kind}\\)`));
  }
  const broken = await runWorkflow(['run', file, '--model', model, '--args', '{"a":'], { home });
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /--args.*not valid JSON/);
  const missing = await runWorkflow(['run', file, '--model', model, '--args', 'nope.json'], {
    home,
  });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--args: "nope\.json" is neither JSON nor the path of a JSON file/);
});

test('workflow run: bad limit flags, a missing file and a missing model exit 2', async () => {
  const { home, model } = setup();
  const file = writeFile(
    home,
    'ok.js',
    `export const meta = { name: 'ok', description: 'fine' };\n${GOOD_BODY}`,
  );
  const zero = await runWorkflow(['run', file, '--model', model, '--max-concurrent', '0'], {
    home,
  });
  assert.equal(zero.code, 2);
  assert.match(zero.stderr, /--max-concurrent must be a whole number from 1 to 256 \(got 0\)/);
  const words = await runWorkflow(['run', file, '--model', model, '--max-agents', 'many'], {
    home,
  });
  assert.equal(words.code, 2);
  assert.match(words.stderr, /--max-agents must be a whole number/);
  const absent = await runWorkflow(['run', join(home, 'absent.js'), '--model', model], { home });
  assert.equal(absent.code, 2);
  assert.match(absent.stderr, /cannot read the workflow script .*absent\.js: no such file/);
  const checkAbsent = await runWorkflow(['check', join(home, 'absent.js')], { home });
  assert.equal(checkAbsent.code, 2);
  const noModel = await runWorkflow(['run', file], { home });
  assert.equal(noModel.code, 2);
  assert.match(noModel.stderr, /no model is configured/);
  const unknownFlag = await runWorkflow(['run', file, '--model', model, '--colour'], { home });
  assert.equal(unknownFlag.code, 2);
});

test('workflow run: an --events file is not left half-written when the run cannot start', async () => {
  const { home, model } = setup();
  const file = writeFile(home, 'bad.js', `export const meta = { name: 'bad' };\n${GOOD_BODY}`);
  const events = join(home, 'events.ndjson');
  const run = await runWorkflow(['run', file, '--model', model, '--events', events], { home });
  assert.equal(run.code, 2);
  assert.equal(existsSync(events) ? readFileSync(events, 'utf8') : '', '');
});
