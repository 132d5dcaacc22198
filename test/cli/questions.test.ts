import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { sessionPaths } from '../helpers/session-files.js';
import { runScripted, scriptedFolders } from './loom-process.js';

const questions = [
  {
    question: 'Which database should the service use?',
    header: 'Database',
    options: [{ label: 'Postgres' }, { label: 'SQLite' }],
  },
  {
    question: 'Which features first?',
    options: [{ label: 'search' }, { label: 'export' }, { label: 'sharing' }],
    multiSelect: true,
  },
];

const askingModel = {
  rules: [
    callsThenReply(
      'plan the service',
      [{ name: 'ask_user_question', arguments: { questions } }],
      'result: {{lastToolResult}}',
    ),
  ],
};

test('loom run --answers: the file answers the question and the answer is in the tool result', async () => {
  const folders = scriptedFolders(askingModel);
  const answers = join(folders.home, 'answers.json');
  writeFileSync(
    answers,
    JSON.stringify({ Database: 'SQLite', 'Which features first?': ['export', 'search'] }),
  );
  const result = await runScripted(folders, 'plan the service', { args: ['--answers', answers] });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /"Which database should the service use\?" → "SQLite"/);
  assert.match(result.stdout, /"Which features first\?" → "export", "search"/);
  const [file] = sessionPaths(folders.home);
  assert.ok(file);
  const { events } = loadSessionFile(file);
  const types = events.map((event) => event.type).filter((type) => type.startsWith('question/'));
  assert.deepEqual(types, ['question/ask', 'question/answer']);
  const toolResult = events.find((event) => event.type === 'tool/result');
  assert.ok(toolResult);
  assert.match((toolResult.data as { content: string }).content, /→ "SQLite"/);
});

test('loom run without a TTY or --answers: the question fails at once with NO_USER', async () => {
  const folders = scriptedFolders(askingModel);
  const result = await runScripted(folders, 'plan the service', { json: true });
  assert.equal(result.code, 0, result.stderr);
  const toolResult = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> })
    .find((line) => line.type === 'tool/result');
  assert.equal(toolResult?.data.errorCode, 'NO_USER');
  assert.match(String(toolResult?.data.content), /nobody can answer here; decide yourself/);
});

test('loom run --answers: an unanswered question is NO_USER naming it; a bad file exits 2 naming it', async () => {
  const folders = scriptedFolders(askingModel);
  const partial = join(folders.home, 'partial.json');
  writeFileSync(partial, JSON.stringify({ Database: 'Postgres' }));
  const result = await runScripted(folders, 'plan the service', { args: ['--answers', partial] });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /does not answer "Which features first\?"/);

  const bad = join(folders.home, 'bad.json');
  writeFileSync(bad, '{"Database": ');
  const refused = await runScripted(folders, 'plan the service', { args: ['--answers', bad] });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, new RegExp(`--answers ${bad}: not valid JSON`));
  assert.deepEqual(sessionPaths(folders.home).length, 1, 'the bad run started no session');
});
