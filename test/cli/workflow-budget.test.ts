import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, writeScriptedModel } from './loom-process.js';
import {
  agentPairs,
  parseResult,
  readEvents,
  runWorkflow,
  writeFile,
  writeJson,
} from './workflow-fixture.js';

interface AgentLine {
  seq: number;
  label: string;
  outcome: string;
  tokens: { input: number; output: number };
  costUsd?: number;
}

const FORTY = `export const meta = { name: 'forty', description: 'Forty agents under a budget' };
return await parallel(Array.from({ length: 40 }, (_, index) => () => agent(\`task \${index}\`)));
`;

test('workflow run --budget-tokens: a spent budget stops the run with BUDGET_EXHAUSTED, at most one slot of agents over it', async () => {
  const home = temporaryFolder();
  const script = writeFile(home, 'forty.js', FORTY);
  const model = writeJson(home, 'model.json', {
    default: { reply: 'done', usage: { input: 50, output: 50 } },
  });
  const eventsPath = join(home, 'events.ndjson');
  const run = await runWorkflow(
    [
      'run',
      script,
      '--model',
      `scripted:${model}`,
      '--budget-tokens',
      '1000',
      '--max-concurrent',
      '4',
      '--json',
      '--events',
      eventsPath,
    ],
    { home },
  );
  assert.equal(run.code, 1, run.stderr);
  const result = parseResult(run);
  assert.equal(result.stopReason, 'error');
  assert.equal(result.code, 'BUDGET_EXHAUSTED');
  assert.match(String(result.error), /the token budget of 1000 tokens is spent/);
  const tokens = result.tokens as { input: number; output: number };
  const spent = tokens.input + tokens.output;
  assert.ok(spent >= 1000 && spent <= 1000 + 4 * 100, `spent ${spent}`);
  for (const failure of result.failures as Array<{ outcome: string; reason: string }>) {
    assert.deepEqual(
      [failure.outcome, failure.reason],
      ['cancelled', 'the token budget of 1000 tokens is spent'],
    );
  }
  const agents = result.agents as AgentLine[];
  assert.equal(agents.length, result.agentsStarted);
  assert.ok(agents.length < 40, `${agents.length} agents started`);
  assert.deepEqual(
    agents.map((agent) => agent.seq),
    agents.map((_, index) => index + 1),
    'in seq order',
  );
  for (const agent of agents) {
    assert.deepEqual(Object.keys(agent), ['seq', 'label', 'outcome', 'tokens']);
    if (agent.outcome === 'completed') assert.deepEqual(agent.tokens, { input: 50, output: 50 });
  }
  assert.deepEqual(
    agents.reduce(
      (sum, agent) => ({
        input: sum.input + agent.tokens.input,
        output: sum.output + agent.tokens.output,
      }),
      { input: 0, output: 0 },
    ),
    tokens,
  );
  const events = readEvents(eventsPath);
  for (const [seq, pair] of agentPairs(events)) {
    assert.ok(pair.end, `agent ${seq} has its end`);
    assert.deepEqual(pair.end.usage, agents[seq - 1]?.tokens);
  }
  assert.equal(events.at(-1)?.type, 'workflow/end');
  assert.match(run.stderr, /BUDGET_EXHAUSTED: the token budget of 1000 tokens is spent/);
});

test('workflow run: prices in config give agents and the --json result a cost; meta.budgetTokens is the script budget', async () => {
  const home = temporaryFolder();
  const script = writeFile(
    home,
    'priced.js',
    `export const meta = { name: 'priced', description: 'Two priced agents', budgetTokens: 100000 };
const answers = await parallel([() => agent('one'), () => agent('two')]);
return { answers, total: budget.total, spent: budget.spent(), remaining: budget.remaining() };
`,
  );
  const model = writeJson(home, 'model.json', {
    default: { reply: 'ok', usage: { input: 1000, output: 500 } },
  });
  const spec = `scripted:${model}`;
  writeFileSync(
    join(home, 'config.yaml'),
    JSON.stringify({ prices: { [spec]: { input: 3, output: 15 } } }),
  );
  const eventsPath = join(home, 'events.ndjson');
  const run = await runWorkflow(
    ['run', script, '--model', spec, '--json', '--events', eventsPath],
    {
      home,
    },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = parseResult(run);
  assert.deepEqual(Object.keys(result), [
    'runId',
    'name',
    'stopReason',
    'value',
    'agentsStarted',
    'failures',
    'tokens',
    'costUsd',
    'agents',
  ]);
  assert.deepEqual(result.value, {
    answers: ['ok', 'ok'],
    total: 100000,
    spent: 3000,
    remaining: 97000,
  });
  assert.deepEqual(result.tokens, { input: 2000, output: 1000 });
  const each = (1000 * 3 + 500 * 15) / 1_000_000;
  assert.deepEqual(result.agents, [
    {
      seq: 1,
      label: 'one',
      outcome: 'completed',
      tokens: { input: 1000, output: 500 },
      costUsd: each,
    },
    {
      seq: 2,
      label: 'two',
      outcome: 'completed',
      tokens: { input: 1000, output: 500 },
      costUsd: each,
    },
  ]);
  assert.equal(result.costUsd, each * 2);
  const ends = readEvents(eventsPath).filter((event) => event.type === 'workflow/agent-end');
  assert.deepEqual(
    ends.map((end) => end.costUsd),
    [each, each],
  );
  assert.match(run.stderr, /^agent #1 completed: one \(1\.0k in \/ 500 out, \$0\.0105\)$/m);
  assert.match(run.stderr, /tokens 2\.0k in \/ 1\.0k out, cost \$0\.0210$/m);
});

test('workflow run --budget-tokens: a value that is not a positive whole number cannot start', async () => {
  const home = temporaryFolder();
  const script = writeFile(home, 'one.js', `return 1;`);
  for (const value of ['0', '-5', '1.5', 'lots']) {
    const run = await runWorkflow(
      ['run', script, '--meta', '{"name":"n","description":"d"}', '--budget-tokens', value],
      { home },
    );
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /--budget-tokens must be a positive whole number of tokens/);
  }
});

test('loom run: the workflow tool takes budget_tokens; the script reads it and a spent budget is an error result', async () => {
  const home = temporaryFolder();
  const workflowCall = (budget: number) => ({
    name: 'workflow',
    arguments: {
      meta: { name: 'budgeted', description: 'Three agents under a budget' },
      script:
        "log('total ' + budget.total); return await parallel(['a', 'b', 'c'].map((w) => () => agent('spend ' + w)));",
      budget_tokens: budget,
    },
  });
  const model = writeScriptedModel(home, {
    rules: [
      {
        when: '^run tight$',
        steps: [{ tools: [workflowCall(150)] }, { reply: 'tool said: {{lastToolResult}}' }],
      },
      {
        when: '^run roomy$',
        steps: [{ tools: [workflowCall(100000)] }, { reply: 'tool said: {{lastToolResult}}' }],
      },
      { when: '^spend (\\w)$', reply: '{{1}}', usage: { input: 60, output: 40 } },
    ],
  });
  const run = async (prompt: string) => {
    const result = await runLoom(
      ['run', '--json', '--model', `scripted:${model}`, '--cwd', home, prompt],
      { home },
    );
    assert.equal(result.code, 0, result.stderr);
    const toolResult = result.stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { type: string; data: { content?: string; isError?: boolean } },
      )
      .find((line) => line.type === 'tool/result');
    return toolResult?.data;
  };
  const tight = await run('run tight');
  assert.equal(tight?.isError, true, tight?.content);
  assert.match(tight?.content ?? '', /BUDGET_EXHAUSTED: the token budget of 150 tokens is spent/);
  const roomy = await run('run roomy');
  assert.equal(roomy?.isError, false, roomy?.content);
  assert.match(roomy?.content ?? '', /completed with 3 agents/);
});
