/**
 * `loom workflow run` on a real terminal (a pseudo-terminal): the live progress shows the run's
 * slots, and a run that completed with a failed agent ends its progress with the summary in
 * yellow, the failed agent (label, reason) and the run's report and resume commands; exit 3.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { startScreen } from '../tui/pty-screen.js';
import { writeFile, writeJson } from './workflow-fixture.js';

/** The palette index of yellow, the colour of a summary that is not a clean completion. */
const YELLOW = 3;

test('workflow run on a terminal: the progress shows 8 slots and ends, in yellow, with the failed agent and the report and resume commands', async () => {
  const home = temporaryFolder();
  const script = writeFile(
    home,
    'pair.js',
    `export const meta = { name: 'pair', description: 'two agents, one fails' };
return await parallel([() => agent('ask a', { label: 'ask a' }), () => agent('ask b', { label: 'ask b' })]);
`,
  );
  const model = writeJson(home, 'model.json', {
    rules: [
      { when: '^ask b$', error: 'b was refused', status: 400 },
      { when: '^ask (\\w)$', reply: 'answer {{1}}' },
    ],
  });
  const screen = startScreen(['workflow', 'run', script, '--model', `scripted:${model}`], {
    home,
    cwd: home,
    env: { LOOM_MODEL: '', DEEPSEEK_API_KEY: '' },
    // Wide enough that no line wraps.
    columns: 200,
  });
  const { exitCode } = await screen.exited;
  const text = screen.text();
  assert.equal(exitCode, 3, text);
  assert.match(text, /agents {2}0 running of 8 slots · 1 done · 1 failed/);
  const summary = /workflow pair completed with 1 failed agent in [\d.]+s: 2 agents/;
  assert.match(text, summary);
  const lines = text.split('\n');
  const at = lines.findIndex((line) => summary.test(line));
  const runId = /^failed agents of run (\S+):$/.exec(lines[at + 1] ?? '')?.[1];
  assert.ok(runId, text);
  assert.deepEqual(lines.slice(at + 2, at + 5), [
    '  #2 ask b: b was refused',
    `see the run: loom workflow report ${runId}`,
    `run the failed agents again: loom workflow run --resume ${runId}`,
  ]);
  assert.equal(screen.styleOf('workflow pair completed with')?.foreground, YELLOW);
});
