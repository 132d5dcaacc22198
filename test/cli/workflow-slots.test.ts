/**
 * A workflow run's default of 8 slots on every machine, through bin/loom: with no flag and no
 * config, the progress says 8 slots and eight hanging agents run at once while a ninth waits
 * (on this machine's cores the old `cpus - 2` ran one); the run's report shows its slots.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import {
  cancelledRun,
  quickAndStuckModel,
  readEvents,
  runWorkflow,
  startScriptedWorkflow,
} from './workflow-fixture.js';

const NINE_STUCK = `export const meta = { name: 'nine', description: 'Nine children that never answer' };
return await parallel([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => () => agent('stuck ' + n, { label: 'stuck ' + n })));
`;

/** A failed assertion must not leave its hanging run behind (the test would wait for it). */
function killAfter(context: TestContext, child: ChildProcess): void {
  context.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
}

test('workflow run: by default 8 agents run at once on any machine, the progress and the report say 8 slots', async (context) => {
  const home = temporaryFolder();
  const { loom, eventsPath } = startScriptedWorkflow(
    home,
    { name: 'nine.js', script: NINE_STUCK, model: quickAndStuckModel },
    ['--json'],
  );
  killAfter(context, loom.child);
  const startLine = await loom.waitForStderr(/^workflow nine: /);
  assert.equal(startLine, 'workflow nine: Nine children that never answer (8 slots)');
  // The ninth cannot start while eight hang in their slots.
  await loom.waitForStderr(/^agent #\d+ started: stuck /, 8);
  loom.child.kill('SIGINT');
  const { result } = await cancelledRun(loom, 130);
  assert.equal(result.agentsStarted, 8);
  const events = readEvents(eventsPath);
  assert.equal(events.filter((event) => event.type === 'workflow/agent-start').length, 8);
  assert.equal(events[0]?.type, 'workflow/start');
  assert.equal(events[0]?.slots, 8, 'the --events file carries the slots too');

  const reportPath = join(home, 'report.html');
  const report = await runWorkflow(['report', String(result.runId), '-o', reportPath], { home });
  assert.equal(report.code, 0, report.stderr);
  assert.match(readFileSync(reportPath, 'utf8'), /<dt>slots<\/dt><dd>8<\/dd>/);
});

test('workflow run: --max-concurrent still sets the slots, and the progress and report say so', async (context) => {
  const home = temporaryFolder();
  const { loom } = startScriptedWorkflow(
    home,
    { name: 'nine.js', script: NINE_STUCK, model: quickAndStuckModel },
    ['--json', '--max-concurrent', '3'],
  );
  killAfter(context, loom.child);
  assert.equal(
    await loom.waitForStderr(/^workflow nine: /),
    'workflow nine: Nine children that never answer (3 slots)',
  );
  await loom.waitForStderr(/^agent #\d+ started: stuck /, 3);
  loom.child.kill('SIGINT');
  const { result } = await cancelledRun(loom, 130);
  assert.equal(result.agentsStarted, 3);
  const reportPath = join(home, 'report.html');
  const report = await runWorkflow(['report', String(result.runId), '-o', reportPath], { home });
  assert.equal(report.code, 0, report.stderr);
  assert.match(readFileSync(reportPath, 'utf8'), /<dt>slots<\/dt><dd>3<\/dd>/);
});
