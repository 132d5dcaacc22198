/**
 * The views of `loom` in a real pseudo-terminal with the scripted model: `/workflows` following
 * a running 20-agent workflow (its agents blocked on a file the test creates), an agent's
 * transcript opened from the tree, then the run's result.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { scriptedFolders } from '../cli/loom-process.js';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import { KEYS, send, startScreen } from './pty-screen.js';

const AGENTS = 20;
/** Each agent's one command: it returns once the test creates `release` in the workspace. */
const WAIT_FOR_RELEASE = 'while [ ! -e release ]; do sleep 0.1; done; echo released';

const COUNTER_SCRIPT = [
  "phase('count');",
  `const counts = await parallel(Array.from({ length: ${AGENTS} }, (_, index) => () => agent('count ' + (index + 1), { label: 'counter ' + (index + 1) })));`,
  "phase('sum');",
  'return { total: counts.filter(Boolean).length, last: counts.at(-1) };',
].join('\n');

test('/workflows shows a running 20-agent workflow live, an agent transcript, then the result', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^run the counters$',
        [
          {
            name: 'workflow',
            arguments: {
              meta: {
                name: 'counters',
                description: 'Counts in parallel',
                phases: [{ title: 'count' }, { title: 'sum' }],
              },
              script: COUNTER_SCRIPT,
            },
          },
        ],
        'workflow said: {{lastToolResult}}',
      ),
      callsThenReply('^count (\\d+)$', [bashCall(WAIT_FOR_RELEASE)], 'counted {{1}}'),
    ],
  });
  writeFileSync(
    join(folders.home, 'config.yaml'),
    `workflow:\n  maxConcurrentAgents: ${AGENTS}\n  offerTool: always\n`,
  );
  const screen = startScreen(['--model', `scripted:${folders.model}`], {
    home: folders.home,
    cwd: folders.workspace,
    rows: 50,
  });
  try {
    await screen.waitFor('ask loom');
    await send(screen, 'run the counters');
    await screen.waitFor('1 workflow ·');
    await send(screen, '/workflows');
    await screen.waitFor(/counters running · 20 agents: 20 running · 0 done · 0 failed/);
    // Each line is awaited: a screen read mid-redraw may hold only part of the tree.
    await screen.waitFor(/▸ count \(20 running\)/);
    for (const seq of [1, 10, 20]) {
      await screen.waitFor(new RegExp(`◌ #${seq} counter ${seq} +running`));
    }
    await screen.waitFor(/ {2}· sum\n/);
    screen.type(KEYS.down);
    await screen.waitFor(/› ◌ #1 counter 1 /);
    screen.type(KEYS.enter);
    await screen.waitFor(/#1 counter 1 · session \S+ · ↑↓ scroll · esc back/);
    await screen.waitFor('> count 1');
    await screen.waitFor(/bash .*while \[ ! -e release \]/);
    screen.type(KEYS.escape);
    // A running agent's tokens so far are read from its live session.
    await screen.waitFor(/› ◌ #1 counter 1 +running · \d+ tokens · /);
    writeFileSync(join(folders.workspace, 'release'), '');
    await screen.waitFor(
      /counters completed · 20 agents: 0 running · 20 done · 0 failed · [\d.k]+ tokens/,
    );
    await screen.waitFor(/✓ count \(20 done\)/);
    await screen.waitFor(/✓ #20 counter 20 +done · [\d.k]+ tokens · /);
    // An agent that has ended is read back from its session file; Up from the first wraps.
    screen.type(KEYS.up);
    await screen.waitFor(/› ✓ #20 counter 20 /);
    screen.type(KEYS.enter);
    await screen.waitFor(/#20 counter 20 · session \S+ · ↑↓ scroll · esc back/);
    await screen.waitFor(/> count 20[\s\S]*✓ bash .*while[\s\S]*counted 20/);
    screen.type(KEYS.escape);
    await screen.waitFor(/› ✓ #20 counter 20 /);
    await screen.waitFor(/workflow said: Workflow "counters" completed with 20 agents/);
    screen.type(KEYS.escape);
    // The answer is printed above the open view; closed, the prompt box follows it directly.
    await screen.waitFor(/"total": 20,\n {2}"last": "counted 20"\n}\n╭─/);
    screen.type(KEYS.ctrlD);
    const { exitCode } = await screen.exited;
    assert.equal(exitCode, 0);
  } finally {
    screen.kill();
  }
});

test('/jobs lists a background job, shows its output without taking it from the agent, and stops it', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^start a job$',
        [bashCall('echo line one; echo line two; sleep 60', { run_in_background: true })],
        'job started',
      ),
    ],
    default: { reply: 'noted' },
  });
  const screen = startScreen(['--model', `scripted:${folders.model}`], {
    home: folders.home,
    cwd: folders.workspace,
  });
  try {
    await screen.waitFor('ask loom');
    await send(screen, 'start a job');
    await screen.waitFor('job started');
    await screen.waitFor(/ask loom, \/ for commands/);
    await send(screen, '/jobs');
    await screen.waitFor(/bash-1 +running \S+ echo line one/);
    screen.type(KEYS.down);
    await screen.waitFor(/› bash-1 +running/);
    screen.type(KEYS.enter);
    await screen.waitFor(/line one\nline two/);
    await screen.waitFor(/bash-1 running \S+ · k stop · esc back/);
    screen.type('k');
    await screen.waitFor(/bash-1 killed \S+ · k stop · esc back/);
    screen.type(KEYS.escape);
    await screen.waitFor(/› bash-1 +killed \S+ echo line one/);
    screen.type(KEYS.escape);
    await screen.waitFor(/noted\n+╭─/);
    screen.type(KEYS.ctrlD);
    assert.equal((await screen.exited).exitCode, 0);
  } finally {
    screen.kill();
  }
});

test('/agents shows a background child; the user interrupts it, messages it and reads its answer', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^start a helper$',
        [
          {
            name: 'subagent',
            arguments: { description: 'helper', prompt: 'stay busy', run_in_background: true },
          },
        ],
        'helper started',
      ),
      { when: '^stay busy$', hang: true },
      { when: '^hello child$', reply: 'hi parent' },
    ],
    default: { reply: 'noted' },
  });
  const screen = startScreen(['--model', `scripted:${folders.model}`], {
    home: folders.home,
    cwd: folders.workspace,
  });
  try {
    await screen.waitFor('ask loom');
    await send(screen, 'start a helper');
    await screen.waitFor('helper started');
    await screen.waitFor(/ask loom, \/ for commands/);
    await send(screen, '/agents');
    await screen.waitFor(/◌ running helper \S+ · \d+ tokens · \S+ old/);
    screen.type(KEYS.down);
    await screen.waitFor(/› ◌ running helper/);
    screen.type('i');
    await screen.waitFor(/interrupted \S+/);
    await screen.waitFor(/› ● idle +helper .*\(last turn \w+\)/);
    screen.type('m');
    await screen.waitFor(/message to \S+:/);
    screen.type('hello child');
    await screen.waitFor(/message to \S+: hello child/);
    screen.type(KEYS.enter);
    await screen.waitFor(/sent to \S+/);
    await screen.waitFor(/› ● idle +helper .*\(last turn completed\)/);
    screen.type(KEYS.enter);
    await screen.waitFor(/helper · session \S+ · ↑↓ scroll · esc back/);
    await screen.waitFor(/> hello child\n+hi parent/);
    screen.type(KEYS.escape);
    await screen.waitFor(/› ● idle +helper/);
    screen.type(KEYS.escape);
    await screen.waitFor(/noted\n+╭─/);
    screen.type(KEYS.ctrlD);
    assert.equal((await screen.exited).exitCode, 0);
  } finally {
    screen.kill();
  }
});
