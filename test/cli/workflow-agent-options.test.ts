/**
 * Claude Code's `agent()` options through `bin/loom`, as a user runs them: a Claude Code-style
 * script using `effort`, `isolation: 'worktree'`, `agentType` (the repository's
 * `.claude/agents/reviewer.md`) and a schema with `anyOf` and type lists runs unchanged in a git repository
 * with the scripted model (the fix lands on the agent's branch, named in its events and the run
 * report; the user's checkout is untouched), and a misspelled option fails at `workflow check`
 * and at `workflow run` before any agent starts.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gitRepository, isolatedGitEnvironment } from '../helpers/git-repository.js';
import { requestPrompts, sessions } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { startLoom } from './loom-process.js';
import { readEvents, writeFile, writeJson } from './workflow-fixture.js';

const SCRIPT = `export const meta = {
  name: 'fix-and-review',
  description: 'Fixes the README typo in a worktree, then reviews the fix',
  phases: [{ title: 'Fix' }, { title: 'Review' }],
};

phase('Fix');
const fix = await agent('Fix the typo in README.md', {
  label: 'fix typo',
  effort: 'high',
  isolation: 'worktree',
});
phase('Review');
const review = await agent('Review the README fix', {
  agentType: 'reviewer',
  effort: 'low',
  schema: {
    type: 'object',
    properties: {
      verdict: { type: 'string', enum: ['approve', 'reject'] },
      note: { type: ['string', 'null'] },
      line: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] },
    },
    required: ['verdict', 'note', 'line'],
  },
});
return { fix, review };
`;

/** The repository's own agent type, as Claude Code reads it. */
const REVIEWER =
  '---\nname: reviewer\ndescription: Reviews a change\ntools: Read, Grep\n---\nYou are the README reviewer (marker-5521).\n';

const MODEL = {
  rules: [
    {
      when: '^Fix the typo',
      steps: [
        {
          tools: [
            { name: 'write_file', arguments: { path: 'README.md', content: 'Hello, world\n' } },
          ],
        },
        { reply: 'fixed the typo' },
      ],
    },
    { when: '^Review', output: { verdict: 'approve', note: null, line: 1 } },
  ],
};

async function run(args: string[], home: string, cwd: string) {
  const loom = startLoom(['workflow', ...args], {
    home,
    cwd,
    env: { ...isolatedGitEnvironment(), DEEPSEEK_API_KEY: '', LOOM_MODEL: '' },
  });
  const { code } = await loom.exited;
  return { code, stdout: loom.stdout(), stderr: loom.stderr() };
}

test('a Claude Code-style script with effort, a worktree, an agent type and anyOf schemas runs unchanged', async () => {
  const home = temporaryFolder('loom-home-');
  const repository = gitRepository({
    'README.md': 'Helo, world\n',
    '.claude/agents/reviewer.md': REVIEWER,
  });
  writeFileSync(join(repository.folder, 'NOTES.md'), 'not committed yet\n');
  const script = writeFile(repository.folder, 'fix-and-review.js', SCRIPT);
  const model = writeJson(home, 'model.json', MODEL);
  const eventsPath = join(home, 'events.ndjson');
  const result = await run(
    ['run', script, '--model', `scripted:${model}`, '--json', '--events', eventsPath],
    home,
    repository.folder,
  );
  assert.equal(result.code, 0, result.stderr);
  const output = JSON.parse(result.stdout) as {
    runId: string;
    value: unknown;
    agents: Array<{ branch?: string }>;
  };
  assert.deepEqual(output.value, {
    fix: 'fixed the typo',
    review: { verdict: 'approve', note: null, line: 1 },
  });
  const branch = `loom/${output.runId}/fix-typo`;
  assert.equal(output.agents[0]?.branch, branch);

  const ends = readEvents(eventsPath).filter((event) => event.type === 'workflow/agent-end');
  assert.equal(ends[0]?.branch, branch);
  assert.deepEqual(ends[0]?.effort, {
    level: 'high',
    control: 'the scripted model takes effort high as given (its answers do not change)',
  });
  assert.equal((ends[1]?.effort as { level?: string } | undefined)?.level, 'low');
  assert.equal(ends[1]?.branch, undefined);

  // The fix is on the agent's branch, with the uncommitted file it started from.
  assert.equal(repository.git('show', `${branch}:README.md`), 'Hello, world');
  assert.equal(repository.git('show', `${branch}:NOTES.md`), 'not committed yet');
  // The user's checkout, index and worktrees are as they were.
  assert.equal(readFileSync(join(repository.folder, 'README.md'), 'utf8'), 'Helo, world\n');
  assert.equal(repository.git('show', 'HEAD:README.md'), 'Helo, world');
  assert.equal(repository.git('branch', '--show-current'), 'main');
  assert.equal(repository.git('worktree', 'list', '--porcelain').split('\n\n').length, 1);

  // Every model request of each child asked for its effort.
  const children = sessions(home).filter((session) => session.header.parentSession === null);
  const efforts = children.flatMap((session) =>
    session.events
      .filter((event) => event.type === 'request/header')
      .map((event) => (event.data as { effort?: string }).effort),
  );
  assert.deepEqual(efforts.sort(), ['high', 'high', 'low']);
  // The reviewer ran as its type: its prompt, and only its tools.
  const reviewer = children.find((session) =>
    session.events.some(
      (event) =>
        event.type === 'user/message' &&
        (event.data as { text: string }).text.startsWith('Review the README fix'),
    ),
  );
  const reviewerPrompts = requestPrompts(reviewer?.events ?? [], join(home, 'sessions'));
  assert.ok(reviewerPrompts.length > 0, 'the reviewer made requests');
  for (const { system, tools } of reviewerPrompts) {
    assert.match(system, /You are the README reviewer \(marker-5521\)/);
    const names = tools.map((tool) => tool.name);
    assert.ok(names.includes('read_file') && names.includes('grep'), names.join());
    assert.ok(!names.includes('write_file') && !names.includes('bash'), names.join());
  }

  const reportPath = join(home, 'report.html');
  const report = await run(['report', output.runId, '-o', reportPath], home, repository.folder);
  assert.equal(report.code, 0, report.stderr);
  const html = readFileSync(reportPath, 'utf8');
  assert.ok(html.includes(branch), 'the report names the branch');
  assert.ok(html.includes('<th>branch</th>'));
});

test('a misspelled option fails at workflow check and at workflow run, starting no agent', async () => {
  const home = temporaryFolder('loom-home-');
  const folder = temporaryFolder('loom-scripts-');
  const script = writeFile(
    folder,
    'typo.js',
    `export const meta = { name: 'typo', description: 'A misspelled option' };
const first = await agent('Summarise the README');
const second = await agent('Review it', { agentType: 'reviewer', efort: 'high' });
return { first, second };
`,
  );
  const checked = await run(['check', script], home, folder);
  assert.equal(checked.code, 2, checked.stderr);
  assert.equal(checked.stdout, '');
  assert.match(checked.stderr, /agent\(\) has no option "efort" \(did you mean effort\?\)/);
  assert.match(checked.stderr, /\(at 3:66\)/);
  assert.match(
    checked.stderr,
    /3 \| … second = await agent\('Review it', \{ agentType: 'reviewer', efort: 'high' \}\);/,
  );

  const model = writeJson(home, 'model.json', { default: { reply: 'spent tokens' } });
  const started = await run(['run', script, '--model', `scripted:${model}`], home, folder);
  assert.equal(started.code, 2, started.stderr);
  assert.match(started.stderr, /no option "efort" \(did you mean effort\?\)/);
  assert.equal(existsSync(join(home, 'sessions')), false, 'no agent started');
});
