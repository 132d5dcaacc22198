// `npm run demo`: two offline runs over scripted models, in a scratch folder so the repository's
// own files are never edited. First one agent turn that reads, edits and runs a command in a copy
// of examples/demo/workspace; then the review workflow (examples/workflows/review.js) fanning out
// to a dozen children, with live progress on stderr and its JSON result printed at the end.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const scratch = mkdtempSync(join(tmpdir(), 'loom-demo-'));
const workspace = join(scratch, 'workspace');
cpSync('examples/demo/workspace', workspace, { recursive: true });
const env = { ...process.env, LOOM_HOME: process.env.LOOM_HOME ?? join(scratch, 'home') };
const loom = resolve('bin/loom');
const bold = (text) => (process.stderr.isTTY ? `\x1b[1m${text}\x1b[0m` : text);

process.stderr.write(bold('1. one agent turn: loom run "tidy the greeting"\n'));
process.stderr.write(`   scratch workspace ${workspace}\n\n`);
const turn = spawnSync(
  process.execPath,
  [
    loom,
    'run',
    '--model',
    'scripted:examples/demo/model.json',
    '--cwd',
    workspace,
    'tidy the greeting',
  ],
  { stdio: 'inherit', env },
);
if (turn.status !== 0) process.exit(turn.status ?? 1);

process.stderr.write(bold('\n2. a workflow: loom workflow run examples/workflows/review.js\n'));
process.stderr.write(
  '   list files -> audit + summarise each (pipeline) -> verify findings (parallel)\n\n',
);
const workflow = spawnSync(
  process.execPath,
  [
    loom,
    'workflow',
    'run',
    resolve('examples/workflows/review.js'),
    '--model',
    `scripted:${resolve('examples/workflows/review.model.json')}`,
    '--max-concurrent',
    '4',
    '--json',
  ],
  { stdio: ['inherit', 'pipe', 'inherit'], env, cwd: workspace, encoding: 'utf8' },
);
if (workflow.status !== 0) {
  process.stdout.write(workflow.stdout ?? '');
  process.exit(workflow.status ?? 1);
}
const result = JSON.parse(workflow.stdout);
process.stderr.write(`\nthe script returned (--json has it as "value"):\n`);
process.stdout.write(`${JSON.stringify(result.value, null, 2)}\n`);
if (result.failures.length > 0) {
  process.stderr.write('failed agents (their items became null, the run still completed):\n');
  for (const failure of result.failures) {
    process.stderr.write(`  #${failure.seq} ${failure.label}: ${failure.reason}\n`);
  }
}
