import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { ndjsonLines, sessions } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import {
  runLoom,
  runScripted,
  type ScriptedFolders,
  scriptedFolders,
  writeScriptedModel,
} from './loom-process.js';

function sessionEvents(home: string) {
  return sessions(home).map((session) => session.events);
}

interface Line {
  type: string;
  data: {
    name?: string;
    content?: string;
    isError?: boolean;
    parentCallId?: string;
    reason?: string;
    step?: number;
    text?: string;
  };
}

const FILES = Array.from({ length: 10 }, (_, index) => `notes/note-${index}.txt`);

/** Ten notes, three of which hold a TODO line. */
function writeNotes(folders: ScriptedFolders): void {
  mkdirSync(join(folders.workspace, 'notes'));
  FILES.forEach((path, index) => {
    const todo = index % 4 === 0 ? `\nTODO: finish note ${index}` : '';
    writeFileSync(join(folders.workspace, path), `note ${index}\nline two${todo}\n`);
  });
}

const PROGRAM = `
const texts = await Promise.all(${JSON.stringify(FILES)}.map((path) => tools.read_file({ path })));
const todos = await tools.grep({ pattern: 'TODO', path: 'notes' });
console.log('read', texts.length, 'files');
return { files: texts.length, todos: todos.split('\\n').filter((line) => line.includes('TODO')).length };
`;

function stepsWithToolCalls(lines: Line[]): number {
  return lines.filter(
    (line) =>
      line.type === 'assistant/message' &&
      (line.data as { toolCalls?: unknown[] }).toolCalls?.length,
  ).length;
}

test('loom run --tools-mode code: one run_code program reads ten files and greps them in one model step', async () => {
  const code = scriptedFolders({
    rules: [
      callsThenReply(
        'survey',
        [[{ name: 'run_code', arguments: { code: PROGRAM } }]],
        'found: {{lastToolResult}}',
      ),
    ],
  });
  writeNotes(code);
  const result = await runScripted(code, 'survey the notes', {
    json: true,
    args: ['--tools-mode', 'code'],
  });
  assert.equal(result.code, 0, result.stderr);
  const lines = ndjsonLines<Line>(result.stdout);
  assert.equal(stepsWithToolCalls(lines), 1);
  const inner = lines.filter((line) => line.type === 'tool/result' && line.data.parentCallId);
  assert.deepEqual(
    inner.map((line) => line.data.name),
    [...FILES.map(() => 'read_file'), 'grep'],
  );
  assert.ok(inner.every((line) => line.data.isError === false));
  const answer = lines.find((line) => line.type === 'turn/end');
  assert.equal(answer?.data.reason, 'completed');
  const program = lines.find(
    (line) => line.type === 'tool/result' && line.data.name === 'run_code',
  );
  assert.equal(program?.data.isError, false);
  assert.match(
    program?.data.content ?? '',
    /^Console output:\nread 10 files\n\nReturned:\n\{"files":10,"todos":3\}$/,
  );

  const native = scriptedFolders({
    rules: [
      callsThenReply(
        'survey',
        [
          FILES.map((path) => ({ name: 'read_file', arguments: { path } })),
          { name: 'grep', arguments: { pattern: 'TODO', path: 'notes' } },
        ],
        'found: {{lastToolResult}}',
      ),
    ],
  });
  writeNotes(native);
  const nativeResult = await runScripted(native, 'survey the notes', { json: true });
  assert.equal(nativeResult.code, 0, nativeResult.stderr);
  assert.ok(stepsWithToolCalls(ndjsonLines<Line>(nativeResult.stdout)) >= 2);
});

test('loom run --tools-mode refuses an unknown mode, naming the choices', async () => {
  const folders = scriptedFolders({ default: { reply: 'never' } });
  const result = await runScripted(folders, 'hello', { args: ['--tools-mode', 'scripts'] });
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    /--tools-mode <mode>' argument 'scripts' is invalid\. Allowed choices are native, code, both/,
  );
});

test('loom workflow run: with subagents.presentation code, schema children answer through a run_code program', async () => {
  const home = temporaryFolder();
  writeFileSync(join(home, 'config.yaml'), 'subagents:\n  presentation: code\n');
  const model = writeScriptedModel(home, {
    rules: [{ when: '^grade (.*)', output: { grade: 'A' } }],
  });
  const script = join(home, 'grades.js');
  writeFileSync(
    script,
    `const schema = { type: 'object', properties: { grade: { type: 'string' } }, required: ['grade'] };
     return parallel(['one', 'two'].map((name) => () => agent('grade ' + name, { schema })));`,
  );
  const result = await runLoom(
    [
      'workflow',
      'run',
      script,
      '--meta',
      JSON.stringify({ name: 'grades', description: 'grade two things' }),
      '--model',
      `scripted:${model}`,
      '--json',
    ],
    { home, cwd: home },
  );
  assert.equal(result.code, 0, result.stderr);
  const output = JSON.parse(result.stdout) as { value: unknown; failures: unknown[] };
  assert.deepEqual(output.value, [{ grade: 'A' }, { grade: 'A' }]);
  assert.deepEqual(output.failures, []);
  const children = sessionEvents(home).filter((events) =>
    events.some(
      (event) => event.type === 'tool/call' && (event.data as Line['data']).name === 'run_code',
    ),
  );
  assert.equal(children.length, 2);
});
