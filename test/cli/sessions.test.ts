import assert from 'node:assert/strict';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, startLoom, writeScriptedModel } from './loom-process.js';

const model = {
  rules: [
    { when: 'stuck', hang: true },
    { when: 'remember (\\w+)', reply: 'noted {{1}}' },
  ],
  default: { reply: 'heard: {{prompt}}' },
};

function sessionIdOf(stdout: string): string {
  const first = JSON.parse(stdout.trim().split('\n')[0] ?? '{}') as { sessionId?: string };
  assert.ok(first.sessionId, 'no session id in the output');
  return first.sessionId;
}

test('loom run --session continues a session; sessions list and show see both turns', async () => {
  const home = temporaryFolder();
  const path = writeScriptedModel(home, model);
  const first = await runLoom(
    ['run', '--json', '--model', `scripted:${path}`, '--cwd', home, 'remember apples'],
    {
      home,
    },
  );
  assert.equal(first.code, 0, first.stderr);
  const id = sessionIdOf(first.stdout);
  const second = await runLoom(
    ['run', '--model', `scripted:${path}`, '--cwd', home, '--session', id, 'what now'],
    {
      home,
    },
  );
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /heard: what now/);

  const list = await runLoom(['sessions', 'list'], { home });
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, new RegExp(`${id} .* 2 turns +remember apples`));

  const show = await runLoom(['sessions', 'show', id], { home });
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /\[followup\] remember apples/);
  assert.match(show.stdout, /\[followup\] what now/);
  assert.match(show.stdout, /noted apples/);
  assert.equal((show.stdout.match(/turn\/end +completed/g) ?? []).length, 2);

  const raw = await runLoom(['sessions', 'show', '--json', id], { home });
  const lines = raw.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string });
  assert.equal(lines.filter((line) => line.type === 'turn/start').length, 2);
});

test('after SIGKILL mid-turn, --session repairs the session and continues it', async () => {
  const home = temporaryFolder();
  const path = writeScriptedModel(home, model);
  const run = startLoom(['run', '--json', '--model', `scripted:${path}`, '--cwd', home, 'stuck'], {
    home,
  });
  const header = await run.waitForLine(/"type":"request\/header"/);
  run.child.kill('SIGKILL');
  await run.exited;
  const id = sessionIdOf(header);
  const next = await runLoom(
    ['run', '--json', '--model', `scripted:${path}`, '--cwd', home, '--session', id, 'again'],
    {
      home,
    },
  );
  assert.equal(next.code, 0, next.stderr);
  const show = await runLoom(['sessions', 'show', id], { home });
  assert.match(show.stdout, /turn\/end +interrupted/);
  assert.match(show.stdout, /turn\/end +completed/);
  assert.ok(show.stdout.indexOf('interrupted') < show.stdout.indexOf('completed'));
});

test('loom sessions show names a session that does not exist', async () => {
  const home = temporaryFolder();
  const result = await runLoom(['sessions', 'show', 'no-such-session'], { home });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /no-such-session/);
});
