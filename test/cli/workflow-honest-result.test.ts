/**
 * `loom workflow run` tells the truth about how a run ended, through bin/loom: a run whose model
 * has no key does not start (exit 2, naming the variable, no agent started), and a script that
 * returns while agents failed is "completed with N failed agents" (exit 3, the failures and the
 * run's report and resume commands at the end of stderr); every agent completed is exit 0.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom } from './loom-process.js';
import { parseResult, runWorkflow, writeFile, writeJson } from './workflow-fixture.js';

const REVIEW = join(process.cwd(), 'examples/workflows/review.js');

const THREE = `export const meta = { name: 'three', description: 'three agents, one may fail' };
const answers = await parallel(['a', 'b', 'c'].map((item) => () => agent('ask ' + item, { label: 'ask ' + item })));
return answers;
`;

function threeAgents(failing: boolean) {
  const home = temporaryFolder();
  const script = writeFile(home, 'three.js', THREE);
  const model = writeJson(home, 'model.json', {
    rules: [
      ...(failing
        ? [{ when: '^ask b$', error: 'the model refused b\nsecond line', status: 400 }]
        : []),
      { when: '^ask (\\w)$', reply: 'answer {{1}}' },
    ],
  });
  return { home, script, model: `scripted:${model}` };
}

test('workflow run: a model whose key variable is empty does not start: exit 2, "could not start" naming the variable, no agent and no run kept', async () => {
  const home = temporaryFolder();
  const env = { LOOM_MODEL: 'openai:gpt-4o-mini', OPENAI_API_KEY: '', DEEPSEEK_API_KEY: '' };
  const run = await runLoom(['workflow', 'run', REVIEW, '--events', join(home, 'events.ndjson')], {
    home,
    env,
  });
  assert.equal(run.code, 2, run.stderr);
  assert.match(
    run.stderr,
    /could not start: the model openai:gpt-4o-mini \(from \$LOOM_MODEL\) needs OPENAI_API_KEY, which is not set/,
  );
  assert.doesNotMatch(run.stderr, /agent #\d+ started/);
  assert.equal(run.stdout, '');
  const runs = join(home, 'runs');
  assert.ok(!existsSync(runs) || readdirSync(runs).length === 0, 'no run was kept');

  const flagged = await runLoom(['workflow', 'run', REVIEW, '--model', 'anthropic:claude-x'], {
    home,
    env: { ...env, ANTHROPIC_API_KEY: '  ' },
  });
  assert.equal(flagged.code, 2, flagged.stderr);
  assert.match(flagged.stderr, /\(from --model\) needs ANTHROPIC_API_KEY, which is not set/);
});

test('loom run checks the model key the same way before the turn starts: exit 2, "could not start" naming the variable, no session written', async () => {
  const home = temporaryFolder();
  const run = await runLoom(['run', 'hello'], {
    home,
    env: { LOOM_MODEL: 'openai:gpt-4o-mini', OPENAI_API_KEY: '', DEEPSEEK_API_KEY: '' },
  });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /could not start: the model openai:gpt-4o-mini .*needs OPENAI_API_KEY/);
  const sessions = join(home, 'sessions');
  assert.ok(!existsSync(sessions) || readdirSync(sessions).length === 0, 'no session was written');
});

test('workflow run: a script that returns while an agent failed exits 3 and ends stderr with the failed agent (label, reason) and the report and resume commands of the run id', async () => {
  const { home, script, model } = threeAgents(true);
  const run = await runWorkflow(['run', script, '--model', model, '--json'], { home });
  assert.equal(run.code, 3, run.stderr);
  const result = parseResult(run);
  assert.equal(result.stopReason, 'completed', 'the --json stopReason stays as SPEC §3 says');
  assert.deepEqual(result.value, ['answer a', null, 'answer c']);
  const runId = result.runId as string;
  const failures = result.failures as Array<Record<string, unknown>>;
  assert.equal(failures.length, 1);
  const lines = run.stderr.trimEnd().split('\n');
  assert.deepEqual(lines.slice(-5), [
    lines.at(-5) ?? '',
    `failed agents of run ${runId}:`,
    `  #${failures[0]?.seq} ask b: the model refused b second line`,
    `see the run: loom workflow report ${runId}`,
    `run the failed agents again: loom workflow run --resume ${runId}`,
  ]);
  assert.match(
    lines.at(-5) ?? '',
    /^workflow three completed with 1 failed agent in [\d.]+s: 3 agents \(2 done, 1 failed, 0 cancelled\)/,
  );

  const resumed = await runWorkflow(['run', '--resume', runId, '--json'], { home });
  assert.equal(resumed.code, 3, 'the printed resume command runs (the model still refuses b)');
  assert.equal(parseResult(resumed).runId, runId);
});

test('workflow run: every agent completed exits 0 with a plain "completed" and no failure lines', async () => {
  const { home, script, model } = threeAgents(false);
  const run = await runWorkflow(['run', script, '--model', model], { home });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /^workflow three completed in [\d.]+s: 3 agents \(3 done,/m);
  assert.doesNotMatch(run.stderr, /failed agents of run|--resume/);
});
