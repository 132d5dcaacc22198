import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { WorkflowError } from '../../src/workflow/contract.js';
import {
  listSavedWorkflows,
  loadSavedWorkflow,
  resolveWorkflowTarget,
  type SavedWorkflow,
  savedWorkflowResolver,
} from '../../src/workflow/saved-workflows.js';
import { writeTree } from '../helpers/file-tree.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const script = (name: string, description: string, body = 'return 1;') =>
  `export const meta = { name: '${name}', description: '${description}' };\n${body}\n`;

/** A project folder and a LOOM_HOME, each with saved workflows. */
function places(project: Record<string, string>, personal: Record<string, string>) {
  const cwd = temporaryFolder();
  const home = temporaryFolder();
  writeTree(
    cwd,
    Object.fromEntries(
      Object.entries(project).map(([file, text]) => [`.loom/workflows/${file}`, text]),
    ),
  );
  writeTree(
    home,
    Object.fromEntries(Object.entries(personal).map(([file, text]) => [`workflows/${file}`, text])),
  );
  return { cwd, home };
}

const summary = (saved: SavedWorkflow) =>
  saved.kind === 'valid'
    ? `${saved.name} ${saved.scope} ${saved.meta.description}${saved.shadows ? ' (hides personal)' : ''}`
    : `${saved.name} ${saved.scope} invalid`;

test('the project workflow wins a shared name; both folders are listed, sorted by name', () => {
  const where = places(
    { 'review.js': script('review', 'project review'), 'audit.js': script('audit', 'audits') },
    { 'review.js': script('review', 'personal review'), 'notes.js': script('notes', 'notes') },
  );
  assert.deepEqual(listSavedWorkflows(where).map(summary), [
    'audit project audits',
    'notes personal notes',
    'review project project review (hides personal)',
  ]);
  const review = listSavedWorkflows(where).find((saved) => saved.name === 'review');
  assert.equal(review?.path, join(where.cwd, '.loom', 'workflows', 'review.js'));
  assert.equal(review?.shadows, join(where.home, 'workflows', 'review.js'));
  assert.deepEqual(resolveWorkflowTarget('review', where), {
    path: join(where.cwd, '.loom', 'workflows', 'review.js'),
    scope: 'project',
  });
  assert.deepEqual(resolveWorkflowTarget('notes', where), {
    path: join(where.home, 'workflows', 'notes.js'),
    scope: 'personal',
  });
  const loaded = loadSavedWorkflow('review', where);
  assert.equal(loaded.meta.description, 'project review');
  assert.equal(loaded.name, 'review');
  assert.match(loaded.body, /^\s*return 1;/);
});

test('names with "-", "_" and "." resolve; dot files, folders and other files are not workflows', () => {
  const where = places(
    {
      'fix-lint.js': script('fix lint', 'fixes lint'),
      'deep_audit.v2.js': script('deep', 'deep audit'),
      '.hidden.js': script('hidden', 'hidden'),
      'README.md': '# not a workflow',
      'folder.js/inside.js': script('inside', 'inside'),
    },
    {},
  );
  assert.deepEqual(
    listSavedWorkflows(where).map((saved) => saved.name),
    ['deep_audit.v2', 'fix-lint'],
  );
  assert.equal(resolveWorkflowTarget('fix-lint', where).scope, 'project');
  assert.equal(resolveWorkflowTarget('deep_audit.v2', where).scope, 'project');
  assert.throws(() => resolveWorkflowTarget('.hidden', where), /no such file/);
});

test('an unknown name fails naming the missing file and every saved name', () => {
  const where = places({ 'a.js': script('a', 'a') }, { 'b-two.js': script('b', 'b') });
  assert.throws(
    () => resolveWorkflowTarget('nope', where),
    (error: unknown) =>
      error instanceof WorkflowError &&
      error.code === 'INVALID_ARGUMENT' &&
      error.message ===
        `cannot read the workflow script ${join(where.cwd, 'nope')}: no such file, and no saved workflow is named nope (saved: a, b-two)`,
  );
  assert.throws(
    () => resolveWorkflowTarget('scripts/nope.js', where),
    new RegExp(
      `${join(where.cwd, 'scripts', 'nope\\.js')}: no such file \\(saved workflows: a, b-two\\)`,
    ),
  );
  assert.throws(() => loadSavedWorkflow('nope', where), {
    code: 'INVALID_ARGUMENT',
    message: 'no saved workflow named "nope" (saved: a, b-two)',
  });
  assert.throws(
    () => loadSavedWorkflow('nope', {}),
    /no saved workflow named "nope" \(saved: none\)/,
  );
  assert.throws(() => resolveWorkflowTarget('  ', where), /a workflow NAME or FILE is needed/);
  assert.throws(
    () => resolveWorkflowTarget('.loom', where),
    /\.loom: it is a folder, not a file \(saved workflows: a, b-two\)$/,
  );
});

test('an existing file wins over a saved name; relative files resolve against relativeTo, else cwd', () => {
  const where = places({ 'review.js': script('saved', 'saved review') }, {});
  const [local] = writeTree(where.cwd, { review: 'a file named like the workflow' });
  const [nested] = writeTree(where.cwd, { 'scripts/helper.js': script('helper', 'helps') });
  assert.deepEqual(resolveWorkflowTarget('review', where), { path: local });
  assert.deepEqual(resolveWorkflowTarget('scripts/helper.js', where), { path: nested });
  const resolver = savedWorkflowResolver(where);
  assert.equal(resolver('helper.js', join(where.cwd, 'scripts')), nested);
  assert.equal(resolver(nested as string, '/somewhere/else'), nested, 'an absolute path stays');
  assert.equal(
    resolver('review', join(where.cwd, 'scripts')),
    join(where.cwd, '.loom', 'workflows', 'review.js'),
    'no file review beside the script: the saved name',
  );
  assert.throws(() => resolver('missing.js', where.cwd), /no such file/);
  assert.throws(
    () => resolver('../../../etc/passwd-not-here', where.cwd),
    /refused: a script may run only saved workflows and files inside the workspace/,
  );
});

test('a saved file with a bad header is listed with its problem, and loading it fails naming the file', () => {
  const where = places(
    {
      'good.js': script('good', 'fine'),
      'no-header.js': 'return 1;\n',
      'not-literal.js': "export const meta = { name: 'x', description: String(1) };\nreturn 1;\n",
      'bad-meta.js': "export const meta = { name: 'x' };\nreturn 1;\n",
      'has space.js': script('spaced', 'spaced'),
    },
    {},
  );
  const listed = listSavedWorkflows(where);
  const problems = Object.fromEntries(
    listed.map((saved) => [saved.name, saved.kind === 'invalid' ? saved.problem : 'ok']),
  );
  assert.equal(problems.good, 'ok');
  assert.match(problems['no-header'] ?? '', /no-header\.js has no meta/);
  assert.match(
    problems['not-literal'] ?? '',
    /not-literal\.js: meta header must be a pure literal: found a function call/,
  );
  assert.match(problems['bad-meta'] ?? '', /bad-meta\.js: .*meta\.description/s);
  assert.match(problems['has space'] ?? '', /the name cannot be called/);
  assert.throws(
    () => loadSavedWorkflow('bad-meta', where),
    (error: unknown) =>
      error instanceof WorkflowError &&
      error.code === 'META_INVALID' &&
      error.message.includes(join(where.cwd, '.loom', 'workflows', 'bad-meta.js')),
  );
});
