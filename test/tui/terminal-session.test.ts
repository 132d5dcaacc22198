/**
 * The session commands of `loom` in a pseudo-terminal: `/resume` reopening the previous
 * session from the picker, `loom --continue` and `loom --resume ID` showing the history, and
 * `/goal OBJECTIVE` running rounds here with the round in the footer. Needs `npm run build`.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { SessionStore } from '../../src/core/session-store.js';
import { runScripted, type ScriptedFolders, scriptedFolders } from '../cli/loom-process.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { KEYS, type ScreenRun, send, startScreen } from './pty-screen.js';

const screens: ScreenRun[] = [];

/** A test that fails midway leaves no terminal behind to hold the test process open. */
afterEach(() => {
  for (const screen of screens.splice(0)) {
    try {
      screen.kill();
    } catch {
      // It already exited.
    }
  }
});

function open(folders: ScriptedFolders, args: string[] = []): ScreenRun {
  const screen = startScreen(['--model', `scripted:${folders.model}`, ...args], {
    home: folders.home,
    cwd: folders.workspace,
  });
  screens.push(screen);
  return screen;
}

async function exitWithId(screen: ScreenRun): Promise<string> {
  screen.type(KEYS.ctrlD);
  const { exitCode } = await screen.exited;
  assert.equal(exitCode, 0);
  const match = /resume it with: loom --resume (\S+)/.exec(screen.text());
  assert.ok(match, `no session id at exit:\n${screen.text()}`);
  return match[1] as string;
}

const userTexts = (home: string, sessionId: string) =>
  loadSessionFile(new SessionStore(home).pathOf(sessionId))
    .events.filter((event) => event.type === 'user/message')
    .map((event) => (event.data as { text: string }).text);

test('/resume picks the previous session of this workspace and the transcript shows its history', async () => {
  const folders = scriptedFolders({ default: { reply: 'answer to {{prompt}}' } });
  const first = open(folders);
  await first.waitFor('ask loom');
  await send(first, 'first question');
  await first.waitFor('answer to first question');
  const firstId = await exitWithId(first);

  const second = open(folders);
  await second.waitFor('ask loom');
  await send(second, '/resume');
  await second.waitFor('enter reopens');
  const picker = await second.waitFor(firstId);
  assert.match(picker, new RegExp(`› ${firstId} .* 1  first question`));
  second.type(KEYS.enter);
  await second.waitFor(`resumed session ${firstId}`);
  assert.match(
    second.text(),
    /^> first question$[\s\S]*^answer to first question$[\s\S]*^resumed session/m,
  );
  await send(second, 'second question');
  await second.waitFor('answer to second question');
  assert.equal(await exitWithId(second), firstId);
  assert.deepEqual(userTexts(folders.home, firstId), ['first question', 'second question']);
});

test('loom --continue reopens the latest session of this workspace, loom --resume ID the named one', async () => {
  const folders = scriptedFolders({ default: { reply: 'answer to {{prompt}}' } });
  const older = await runScripted(folders, 'older question');
  assert.equal(older.code, 0, older.stderr);
  const newer = await runScripted(folders, 'newer question');
  assert.equal(newer.code, 0, newer.stderr);
  const ids = new SessionStore(folders.home).list().map((summary) => summary.id);
  assert.equal(ids.length, 2);
  const [olderId, newerId] = ids as [string, string];

  const continued = open(folders, ['--continue']);
  await continued.waitFor('ask loom');
  await continued.waitFor('answer to newer question');
  assert.doesNotMatch(continued.text(), /older question/);
  await send(continued, 'and then');
  await continued.waitFor('answer to and then');
  assert.equal(await exitWithId(continued), newerId);
  assert.deepEqual(userTexts(folders.home, newerId), ['newer question', 'and then']);

  const resumed = open(folders, ['--resume', olderId]);
  await resumed.waitFor('ask loom');
  await resumed.waitFor('answer to older question');
  assert.doesNotMatch(resumed.text(), /newer question/);
  assert.equal(await exitWithId(resumed), olderId);
});

test('loom --continue reopens the session used last, not the one created last', async () => {
  const folders = scriptedFolders({ default: { reply: 'answer to {{prompt}}' } });
  assert.equal((await runScripted(folders, 'older question')).code, 0);
  assert.equal((await runScripted(folders, 'newer question')).code, 0);
  const [olderId] = new SessionStore(folders.home).list().map((summary) => summary.id) as [string];
  // The older session is worked in again, after the newer one was created.
  const again = await runScripted(folders, 'older again', { args: ['--session', olderId] });
  assert.equal(again.code, 0, again.stderr);

  const continued = open(folders, ['--continue']);
  await continued.waitFor('ask loom');
  await continued.waitFor('answer to older again');
  assert.doesNotMatch(continued.text(), /newer question/);
  assert.equal(await exitWithId(continued), olderId);
});

test('/goal OBJECTIVE runs its rounds here with the round in the footer, and /goal resume goes on after Esc', async () => {
  const folders = scriptedFolders({
    rules: [
      { when: '^\\[goal round 2 of', hang: true, times: 1 },
      callsThenReply(
        '^\\[goal round 3 of',
        [
          {
            name: 'update_goal',
            arguments: { goal_id: 'goal-1', revision: 1, action: 'complete', reason: 'all done' },
          },
        ],
        'finished',
      ),
      { when: '^\\[goal round (\\d+) of', reply: 'worked on round {{1}}' },
    ],
  });
  const screen = open(folders);
  await screen.waitFor('ask loom');
  await send(screen, '/goal tidy the docs');
  await screen.waitFor('worked on round 1');
  const hanging = await screen.waitFor(/goal running round 2\/20 · esc interrupt/);
  assert.match(hanging, /goal round 1: \[goal round 1 of 20\] tidy the docs/);
  screen.type(KEYS.escape);
  await screen.waitFor('goal stopped round 2/20');
  await screen.waitFor('goal rounds stopped');
  await send(screen, '/goal resume');
  await screen.waitFor(/goal complete after 3 rounds: all done/);
  assert.match(await screen.waitFor('goal complete round 3/20'), /finished/);
  const sessionId = await exitWithId(screen);
  const rounds = loadSessionFile(new SessionStore(folders.home).pathOf(sessionId))
    .events.filter((event) => event.type === 'user/message')
    .map((event) => (event.data as { round?: number }).round);
  assert.deepEqual(rounds, [1, 2, 3]);
});

test('/cost shows tokens and cost per agent from the configured prices, and the footer the total', async () => {
  const folders = scriptedFolders({
    default: { reply: 'answer to {{prompt}}', usage: { input: 1000, output: 500 } },
  });
  writeFileSync(
    join(folders.home, 'config.yaml'),
    `prices:\n  ${JSON.stringify(`scripted:${folders.model}`)}: { input: 3, output: 15 }\n`,
  );
  const screen = open(folders);
  await screen.waitFor('ask loom');
  await send(screen, 'hello');
  await screen.waitFor('answer to hello');
  await screen.waitFor('$0.0105');
  await send(screen, '/cost');
  const shown = await screen.waitFor(/total: 1\.0k in, 500 out · \$0\.0105/);
  assert.match(shown, /main: 1\.0k in, 500 out · \$0\.0105/);
  await exitWithId(screen);
});

// Opened in the wrong folder, the terminal would wait for keys: the timeout makes that a failure.
test('loom --resume ID from another folder is refused, naming the session’s workspace and how to open it', {
  timeout: 30_000,
}, async () => {
  const folders = scriptedFolders({ default: { reply: 'answer to {{prompt}}' } });
  const first = await runScripted(folders, 'a question');
  assert.equal(first.code, 0, first.stderr);
  const [id] = new SessionStore(folders.home).list().map((summary) => summary.id);
  const elsewhere = startScreen(
    ['--model', `scripted:${folders.model}`, '--resume', id as string],
    {
      home: folders.home,
      cwd: temporaryFolder(),
    },
  );
  screens.push(elsewhere);
  const { exitCode, output } = await elsewhere.exited;
  assert.notEqual(exitCode, 0);
  assert.match(output.replace(/\r?\n/g, ' '), /WORKSPACE_MISMATCH|belongs to the workspace/);
  assert.match(
    elsewhere.text().replace(/\n/g, ''),
    new RegExp(`loom --resume ${id} --cwd ${folders.workspace}`),
  );
});
