import assert from 'node:assert/strict';
import { lstatSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sessionIdOf } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, writeScriptedModel } from './loom-process.js';
import { parseResult, runWorkflow, writeFile, writeJson } from './workflow-fixture.js';

/** Moves `path` to a file outside the home and leaves a symbolic link to it in its place. */
function linkOutside(path: string): { outside: string; content: string } {
  const outside = join(temporaryFolder(), 'outside-file');
  renameSync(path, outside);
  symlinkSync(outside, path);
  return { outside, content: readFileSync(outside, 'utf8') };
}

function assertStillLinked(path: string, outside: { outside: string; content: string }): void {
  assert.equal(
    readFileSync(outside.outside, 'utf8'),
    outside.content,
    'the outside file is unchanged',
  );
  assert.ok(lstatSync(path).isSymbolicLink(), 'the link is left as it was, not replaced');
}

test('workflow run --resume refuses a journal that is a symbolic link, naming it, and writes nothing through it', async () => {
  const home = temporaryFolder();
  const script = writeFile(
    home,
    'two.js',
    `export const meta = { name: 'two', description: 'two agents' };
return [await agent('one'), await agent('two')];
`,
  );
  const model = writeJson(home, 'model.json', { default: { reply: 'answer' } });
  const first = await runWorkflow(['run', script, '--model', `scripted:${model}`, '--json'], {
    home,
  });
  assert.equal(first.code, 0, first.stderr);
  const runId = parseResult(first).runId as string;
  const folder = join(home, 'runs', runId);
  const journal = join(folder, 'journal.ndjson');
  // A file the journal's reader takes as empty: every call would run again and append to it.
  writeFileSync(journal, '');
  const outside = linkOutside(journal);
  const runFile = readFileSync(join(folder, 'run.json'), 'utf8');

  const resumed = await runWorkflow(
    ['run', '--resume', runId, '--model', `scripted:${model}`, '--json'],
    { home },
  );
  assert.equal(resumed.code, 2, resumed.stderr);
  assert.ok(resumed.stderr.includes(`${journal} is a symbolic link`), resumed.stderr);
  assertStillLinked(journal, outside);
  assert.equal(
    readFileSync(join(folder, 'run.json'), 'utf8'),
    runFile,
    'the run is left as it was',
  );
});

test('loom run --session refuses a session file that is a symbolic link, naming it, and appends nothing to its target', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { default: { reply: 'heard: {{prompt}}' } });
  const created = await runLoom(
    ['run', '--json', '--model', `scripted:${model}`, '--cwd', home, 'hello'],
    { home },
  );
  assert.equal(created.code, 0, created.stderr);
  const id = sessionIdOf(created.stdout);
  const session = join(home, 'sessions', `${id}.jsonl`);
  const outside = linkOutside(session);

  const again = await runLoom(
    ['run', '--model', `scripted:${model}`, '--cwd', home, '--session', id, 'more'],
    { home },
  );
  assert.notEqual(again.code, 0, again.stderr);
  assert.ok(again.stderr.includes(`${session} is a symbolic link`), again.stderr);
  assertStillLinked(session, outside);
});

test('loom run reports a workspaces.json that is a symbolic link, naming it, and neither replaces it nor writes its target', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { default: { reply: 'heard: {{prompt}}' } });
  const run = () =>
    runLoom(['run', '--model', `scripted:${model}`, '--cwd', temporaryFolder(), 'hello'], {
      home,
    });
  const first = await run();
  assert.equal(first.code, 0, first.stderr);
  const registry = join(home, 'workspaces.json');
  const outside = linkOutside(registry);

  const second = await run();
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stderr, /the workspace registry was not updated/);
  assert.ok(second.stderr.includes(`${registry} is a symbolic link`), second.stderr);
  assertStillLinked(registry, outside);
});
