import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeTree } from '../helpers/file-tree.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { parseResult, runWorkflow, writeJson } from './workflow-fixture.js';

const GREET = `export const meta = { name: 'greeter', description: 'Greets each name', phases: [{ title: 'greet' }] };
phase('greet');
const greetings = await parallel(args.names.map((name) => () => agent('greet ' + name, { label: name })));
return { greetings, punctuation: args.punctuation ?? null };
`;

/** A project (the process's folder) and a LOOM_HOME, each with saved workflows, and a model. */
function setup() {
  const home = temporaryFolder();
  const project = temporaryFolder();
  writeTree(project, {
    '.loom/workflows/greet-all.js': GREET,
    '.loom/workflows/broken.js': "export const meta = { name: 'broken' };\nreturn 1;\n",
  });
  writeTree(home, {
    'workflows/greet-all.js':
      "export const meta = { name: 'personal greeter', description: 'Hidden by the project' };\nreturn 'personal';\n",
    'workflows/tidy_up.js':
      "export const meta = { name: 'tidy', description: 'Tidies up\\nthe workspace' };\nreturn 'tidied';\n",
  });
  const model = `scripted:${writeJson(home, 'model.json', {
    rules: [{ when: '^greet (\\w+)$', reply: 'hi {{1}}' }],
  })}`;
  return { home, project, model };
}

test('ACCEPTANCE: loom workflow run NAME --args runs the saved workflow (the project one wins) with those args', async () => {
  const { home, project, model } = setup();
  const run = await runWorkflow(
    [
      'run',
      'greet-all',
      '--args',
      '{"names": ["ann", "bob"], "punctuation": "!"}',
      '--model',
      model,
      '--json',
    ],
    { home, cwd: project },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = parseResult(run);
  assert.equal(result.name, 'greeter');
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(result.value, { greetings: ['hi ann', 'hi bob'], punctuation: '!' });
  assert.equal(result.agentsStarted, 2);

  const personal = await runWorkflow(['run', 'tidy_up', '--model', model], { home, cwd: project });
  assert.equal(personal.code, 0, personal.stderr);
  assert.equal(personal.stdout, '"tidied"\n');
});

test('loom workflow list shows each saved workflow with its description and where it lives; --json one object each', async () => {
  const { home, project } = setup();
  const saved = join(project, '.loom', 'workflows');
  const list = await runWorkflow(['list'], { home, cwd: project });
  assert.equal(list.code, 0, list.stderr);
  const problem =
    'error: invalid workflow meta (1 problem): meta.description: must be a non-empty string (it is missing)';
  const row = (name: string, scope: string, description: string, path: string) =>
    `${name.padEnd(9)}  ${scope.padEnd(24)}  ${description.padEnd(problem.length)}  ${path}\n`;
  assert.equal(
    list.stdout,
    row('NAME', 'SCOPE', 'DESCRIPTION', 'PATH') +
      row('broken', 'project', problem, join(saved, 'broken.js')) +
      row(
        'greet-all',
        'project (hides personal)',
        'Greets each name',
        join(saved, 'greet-all.js'),
      ) +
      row('tidy_up', 'personal', 'Tidies up', join(home, 'workflows', 'tidy_up.js')),
  );
  const json = await runWorkflow(['list', '--json'], { home, cwd: project });
  assert.equal(json.code, 0, json.stderr);
  const rows = json.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.deepEqual(rows[1], {
    name: 'greet-all',
    scope: 'project',
    path: join(saved, 'greet-all.js'),
    shadows: join(home, 'workflows', 'greet-all.js'),
    title: 'greeter',
    description: 'Greets each name',
  });
  assert.equal(rows[0]?.name, 'broken');
  assert.match(String(rows[0]?.problem), /broken\.js: invalid workflow meta/);
  assert.equal(rows[2]?.description, 'Tidies up\nthe workspace');

  const empty = await runWorkflow(['list'], { home: temporaryFolder(), cwd: temporaryFolder() });
  assert.equal(empty.code, 0);
  assert.equal(empty.stdout, '');
  assert.match(empty.stderr, /^no saved workflows: add \.loom\/workflows\/NAME\.js/);
});

test('loom workflow check NAME checks the saved file; an existing file of that name wins', async () => {
  const { home, project } = setup();
  const check = await runWorkflow(['check', 'greet-all'], { home, cwd: project });
  assert.equal(check.code, 0, check.stderr);
  assert.equal(check.stdout, 'ok: greeter\n');
  const broken = await runWorkflow(['check', 'broken'], { home, cwd: project });
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /META_INVALID: .*meta\.description/s);
  writeTree(project, {
    'greet-all': "export const meta = { name: 'the local file', description: 'd' };\nreturn 1;\n",
  });
  const local = await runWorkflow(['check', 'greet-all'], { home, cwd: project });
  assert.equal(local.stdout, 'ok: the local file\n', local.stderr);
});

test('an unknown NAME or a missing workflow argument exits 2, naming the missing file and the saved names', async () => {
  const { home, project, model } = setup();
  const unknown = await runWorkflow(['run', 'greet', '--model', model, '--json'], {
    home,
    cwd: project,
  });
  assert.equal(unknown.code, 2);
  assert.deepEqual(JSON.parse(unknown.stdout), {
    error: `cannot read the workflow script ${join(project, 'greet')}: no such file, and no saved workflow is named greet (saved: broken, greet-all, tidy_up)`,
    code: 'INVALID_ARGUMENT',
  });
  assert.equal(
    unknown.stderr,
    `loom: INVALID_ARGUMENT: cannot read the workflow script ${join(project, 'greet')}: no such file, and no saved workflow is named greet (saved: broken, greet-all, tidy_up)\n`,
  );
  const checkUnknown = await runWorkflow(['check', 'greet'], { home, cwd: project });
  assert.equal(checkUnknown.code, 2);
  assert.match(checkUnknown.stderr, /no saved workflow is named greet/);
  for (const command of ['run', 'check']) {
    const none = await runWorkflow([command], { home, cwd: project });
    assert.equal(none.code, 2, command);
    assert.match(none.stderr, /a workflow NAME or FILE is needed/, command);
  }
});
