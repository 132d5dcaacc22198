/**
 * `loom run` on a terminal asks the agent's questions with a prompt: bin/loom runs in a
 * pseudo-terminal (@lydell/node-pty), and the test types as a user would, each time after the
 * prompt it answers has been drawn (so the keys reach the prompt, not the line discipline).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawn } from '@lydell/node-pty';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkPairs, checkSessionInvariants } from '../../src/testing/invariants.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { sessionPaths } from '../helpers/session-files.js';
import { LOOM_BIN, scriptedFolders } from './loom-process.js';

const DOWN = '\x1b[B';
const ENTER = '\r';
const CTRL_C = '\x03';

const questions = [
  {
    question: 'Which database should the service use?',
    header: 'Database',
    options: [{ label: 'Postgres' }, { label: 'SQLite' }],
  },
  { question: 'Which port should it listen on?', options: [{ label: '80' }, { label: '8080' }] },
];

function terminalRun(prompt: string) {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        'plan the service',
        [{ name: 'ask_user_question', arguments: { questions } }],
        'result: {{lastToolResult}}',
      ),
    ],
  });
  const terminal = spawn(
    process.execPath,
    [LOOM_BIN, 'run', '--model', `scripted:${folders.model}`, '--cwd', folders.workspace, prompt],
    {
      cols: 120,
      rows: 40,
      cwd: folders.workspace,
      env: { ...process.env, LOOM_HOME: folders.home } as Record<string, string>,
    },
  );
  let output = '';
  const waiters: Array<{ pattern: RegExp; from: number; resolve: () => void }> = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      if (!waiter.pattern.test(output.slice(waiter.from))) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  terminal.onData((data) => {
    output += data;
    check();
  });
  const exited = new Promise<number>((resolve) =>
    terminal.onExit(({ exitCode }) => resolve(exitCode)),
  );
  let mark = 0;
  return {
    folders,
    output: () => output,
    exited,
    /** Resolves once `pattern` shows after what the previous wait saw. */
    async waitFor(pattern: RegExp): Promise<void> {
      const from = mark;
      const seen = new Promise<void>((resolve) => {
        waiters.push({ pattern, from, resolve });
        check();
      });
      let waiting = true;
      const ended = exited.then((code) => {
        if (waiting) throw new Error(`loom exited (${code}) before ${pattern} showed:\n${output}`);
      });
      ended.catch(() => {}); // observed by the race below; never unhandled once it has settled
      try {
        await Promise.race([seen, ended]);
      } finally {
        waiting = false;
      }
      mark = output.length;
    },
    type: (keys: string) => terminal.write(keys),
  };
}

function questionEvents(home: string) {
  const [file] = sessionPaths(home);
  assert.ok(file);
  return loadSessionFile(file).events;
}

test('loom run on a TTY: the user picks an option and types "Other", the answers reach the model', async () => {
  const run = terminalRun('plan the service');
  await run.waitFor(/Database: Which database should the service use\?/);
  run.type(DOWN + ENTER);
  await run.waitFor(/Which port should it listen on\?/);
  run.type(DOWN + DOWN + ENTER);
  await run.waitFor(/Other: Which port should it listen on\?/);
  run.type(`9000${ENTER}`);
  const code = await run.exited;
  assert.equal(code, 0, run.output());
  assert.match(run.output(), /"Which database should the service use\?" → "SQLite"/);
  assert.match(run.output(), /"Which port should it listen on\?" → Other: "9000"/);
  const events = questionEvents(run.folders.home);
  const answer = events.find((event) => event.type === 'question/answer');
  assert.ok(answer);
  assert.deepEqual((answer.data as { answers?: unknown }).answers, [
    { question: 'Which database should the service use?', labels: ['SQLite'] },
    { question: 'Which port should it listen on?', labels: [], text: '9000' },
  ]);
});

test('loom run on a TTY: Ctrl-C in the prompt stops the run like Ctrl-C anywhere (130), the log pairs', async () => {
  const run = terminalRun('plan the service');
  await run.waitFor(/Database: Which database should the service use\?/);
  run.type(CTRL_C);
  const code = await run.exited;
  assert.equal(code, 130, run.output());
  const events = questionEvents(run.folders.home);
  const answer = events.find((event) => event.type === 'question/answer');
  assert.ok(answer);
  assert.equal((answer.data as { outcome: string }).outcome, 'cancelled');
  assert.deepEqual(
    checkPairs(events, {
      start: 'question/ask',
      end: 'question/answer',
      key: (event) => (event.data as { callId?: string }).callId,
    }),
    [],
  );
  assert.deepEqual(checkSessionInvariants(events), []);
  const end = events.at(-1);
  assert.ok(end);
  assert.equal(end.type, 'turn/end');
  assert.equal((end.data as { reason: string }).reason, 'aborted');
});
