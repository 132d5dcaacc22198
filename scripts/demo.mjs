// `npm run demo`: two offline runs over scripted models, in a scratch folder so the repository's
// own files are never edited. First one agent turn that reads, edits and runs a command in a copy
// of examples/demo/workspace; then the review workflow (examples/workflows/review.js) fanning out
// to scripted children, with live progress on stderr and its JSON result printed at the end.
// One child fails on purpose, so that run exits 3 ("completed with failed agents"): the demo
// expects exactly that and says so; any other code fails the demo.
// The scratch folder (and the sessions in it, unless LOOM_HOME is set) is removed at the end.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const fromRoot = (path) => join(root, path);
const loom = fromRoot('bin/loom');
const bold = (text) => (process.stderr.isTTY ? `\x1b[1m${text}\x1b[0m` : text);
/** `loom workflow run`: the script completed, but some of its agents failed. */
const EXIT_FAILED_AGENTS = 3;

function agentTurn(workspace, env) {
  process.stderr.write(bold('1. one agent turn: loom run "tidy the greeting"\n'));
  process.stderr.write(`   scratch workspace ${workspace}\n`);
  process.stderr.write(
    '   the model is scripted (examples/demo/model.json): its answers are fixed, the tools really run\n\n',
  );
  const turn = spawnSync(
    process.execPath,
    [
      loom,
      'run',
      '--model',
      `scripted:${fromRoot('examples/demo/model.json')}`,
      '--cwd',
      workspace,
      'tidy the greeting',
    ],
    { stdio: 'inherit', env },
  );
  return turn.status ?? 1;
}

function reviewWorkflow(workspace, env) {
  process.stderr.write(bold('\n2. a workflow: loom workflow run examples/workflows/review.js\n'));
  process.stderr.write(
    '   list files -> audit + summarise each (pipeline) -> verify findings (parallel)\n',
  );
  process.stderr.write(
    '   every child answers from examples/workflows/review.model.json (scripted, one fails on purpose)\n\n',
  );
  const workflow = spawnSync(
    process.execPath,
    [
      loom,
      'workflow',
      'run',
      fromRoot('examples/workflows/review.js'),
      '--model',
      `scripted:${fromRoot('examples/workflows/review.model.json')}`,
      '--max-concurrent',
      '4',
      '--json',
    ],
    { stdio: ['inherit', 'pipe', 'inherit'], env, cwd: workspace, encoding: 'utf8' },
  );
  if (workflow.status !== EXIT_FAILED_AGENTS) {
    process.stdout.write(workflow.stdout ?? '');
    process.stderr.write(
      `\nthe demo expected exit ${EXIT_FAILED_AGENTS} (one child fails on purpose), got ${workflow.status ?? workflow.signal}\n`,
    );
    return workflow.status || 1;
  }
  const result = JSON.parse(workflow.stdout);
  process.stderr.write(`\nthe script returned (--json has it as "value"):\n`);
  process.stdout.write(`${JSON.stringify(result.value, null, 2)}\n`);
  const failed = result.failures.length;
  process.stderr.write(
    `${result.agentsStarted} children started, ${result.agentsStarted - failed} succeeded, ${failed} failed\n`,
  );
  process.stderr.write(
    `exit ${workflow.status}, as expected: the script completed, but ${failed} of its children failed ` +
      "(on purpose here; a failed child's item becomes null). Without failures it exits 0.\n",
  );
  if (process.env.LOOM_HOME === undefined) {
    process.stderr.write(
      'the run is kept in the scratch LOOM_HOME, removed now; set LOOM_HOME to keep it for `loom workflow report`\n',
    );
  }
  return 0;
}

const scratch = mkdtempSync(join(tmpdir(), 'loom-demo-'));
let status = 1;
try {
  const workspace = join(scratch, 'workspace');
  cpSync(fromRoot('examples/demo/workspace'), workspace, { recursive: true });
  const env = { ...process.env, LOOM_HOME: process.env.LOOM_HOME ?? join(scratch, 'home') };
  status = agentTurn(workspace, env);
  if (status === 0) status = reviewWorkflow(workspace, env);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
process.exitCode = status;
