/**
 * Agent types through bin/loom, in a repository prepared for Claude Code: `.claude/agents/
 * reviewer.md` reaches a child that `loom run`'s model starts with `subagent {agent_type:
 * "reviewer"}` (its prompt as the child's persona, its Claude Code tool names as Loom's tools),
 * and `loom agents list` shows it beside the built-in types and a malformed file's problem.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { writeTree } from '../helpers/file-tree.js';
import { callsThenReply, subagentCall } from '../helpers/scripted-turns.js';
import { ndjsonLines, requestPrompts, sessions, toolResults } from '../helpers/session-files.js';
import { runLoom, runScripted, scriptedFolders } from './loom-process.js';

const REVIEWER = [
  '---',
  'name: reviewer',
  'description: Reviews the change and lists what is wrong with it',
  'tools: Read, Grep',
  'model: inherit',
  'color: red',
  '---',
  'You are Quill, a strict code reviewer. Name each problem with its file and line.',
  '',
].join('\n');

test('loom run: subagent {agent_type: reviewer} runs .claude/agents/reviewer.md with its prompt and tools', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^review the change$',
        [subagentCall('review', 'review src/a.ts', { agent_type: 'reviewer' })],
        'the reviewer said: {{lastToolResult}}',
      ),
      { when: '^review src/a.ts$', reply: 'a.ts:1 has a typo' },
    ],
  });
  writeTree(folders.workspace, {
    '.claude/agents/reviewer.md': REVIEWER,
    'src/a.ts': 'cosnt a = 1;\n',
  });
  const result = await runScripted(folders, 'review the change');
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), 'the reviewer said: a.ts:1 has a typo');

  const all = sessions(folders.home);
  const root = all.find((session) => session.header.delegationDepth === 0);
  const child = all.find((session) => session.header.delegationDepth === 1);
  assert.ok(root && child);
  const sessionFolder = join(folders.home, 'sessions');
  const [childRequest] = requestPrompts(child.events, sessionFolder);
  assert.ok(
    childRequest?.system.startsWith('You are Quill, a strict code reviewer.'),
    childRequest?.system,
  );
  assert.doesNotMatch(childRequest?.system ?? '', /You are Loom/);
  assert.deepEqual(childRequest?.tools.map((tool) => tool.name).sort(), ['grep', 'read_file']);

  const [rootRequest] = requestPrompts(root.events, sessionFolder);
  const subagent = rootRequest?.tools.find((tool) => tool.name === 'subagent');
  assert.match(
    subagent?.description ?? '',
    /\n- reviewer: Reviews the change and lists what is wrong with it(\n|$)/,
  );
  assert.ok(
    rootRequest?.tools.some((tool) => tool.name === 'bash'),
    'the root keeps its tools',
  );
});

const fakeAgent = fileURLToPath(
  new URL('../subagent/fixtures/fake-acp-agent.mjs', import.meta.url),
);

test('agent_type over ACP: Loom itself (acp) takes the persona and tools; a foreign agent refuses the persona and never starts', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^review both ways$',
        [
          [
            subagentCall('loom review', 'review over acp', {
              agent_type: 'reviewer',
              provider: 'acp',
            }),
            subagentCall('foreign review', 'review elsewhere', {
              agent_type: 'reviewer',
              provider: 'fake',
            }),
          ],
        ],
        'done',
      ),
      { when: '^review over acp$', reply: 'reviewed over acp' },
    ],
  });
  writeTree(folders.workspace, { '.claude/agents/reviewer.md': REVIEWER });
  const pids = join(folders.home, 'agent-pids');
  writeFileSync(
    join(folders.home, 'config.yaml'),
    `subagents:\n  providers:\n    fake:\n      type: acp\n      command: ${JSON.stringify(process.execPath)}\n      args: [${JSON.stringify(fakeAgent)}]\n      env: { FAKE_AGENT_PIDS: ${JSON.stringify(pids)} }\n`,
  );
  const run = await runScripted(folders, 'review both ways', { json: true });
  assert.equal(run.code, 0, run.stderr);
  const [loomChild, foreignChild] = toolResults(ndjsonLines(run.stdout), 'subagent');
  assert.equal(loomChild?.isError, false, loomChild?.content);
  assert.equal(loomChild?.content, 'reviewed over acp');
  assert.equal(foreignChild?.errorCode, 'UNSUPPORTED_CAPABILITY');
  assert.match(
    foreignChild?.content ?? '',
    /subagent provider fake does not support toolFilter, persona/,
  );
  assert.equal(existsSync(pids), false, 'the foreign agent never started');

  // The session `loom acp` served: the reviewer's prompt and tools, enforced in the child.
  const served = sessions(folders.home).find((session) =>
    requestPrompts(session.events, join(folders.home, 'sessions')).some((request) =>
      request.system.startsWith('You are Quill'),
    ),
  );
  assert.ok(served, 'a session ran with the reviewer prompt');
  const [request] = requestPrompts(served.events, join(folders.home, 'sessions'));
  assert.deepEqual(request?.tools.map((tool) => tool.name).sort(), ['grep', 'read_file']);
});

test('loom agents list [--json]: built-in types, a .claude/agents file, a personal one it hides, and a malformed file', async () => {
  const folders = scriptedFolders({ rules: [] });
  writeTree(folders.workspace, {
    '.claude/agents/reviewer.md': REVIEWER,
    '.loom/agents/broken.md': '---\nname: broken\neffort: huge\n---\nbody\n',
  });
  writeTree(folders.home, {
    'agents/reviewer.md': '---\ndescription: my own reviewer\n---\nMine.\n',
  });
  const json = await runLoom(['agents', 'list', '--json', '--cwd', folders.workspace], {
    home: folders.home,
  });
  assert.equal(json.code, 0, json.stderr);
  const lines = ndjsonLines<Record<string, unknown>>(json.stdout);
  const reviewerPath = join(folders.workspace, '.claude/agents/reviewer.md');
  assert.deepEqual(lines, [
    {
      name: 'Explore',
      origin: 'builtin',
      description: lines[0]?.description,
      tools: ['read_file', 'glob', 'grep'],
    },
    { name: 'general-purpose', origin: 'builtin', description: lines[1]?.description },
    {
      name: 'Plan',
      origin: 'builtin',
      description: lines[2]?.description,
      tools: ['read_file', 'glob', 'grep'],
    },
    {
      name: 'reviewer',
      origin: 'claude',
      description: 'Reviews the change and lists what is wrong with it',
      path: reviewerPath,
      tools: ['read_file', 'grep'],
      hides: ['personal'],
    },
    {
      name: 'broken',
      origin: 'project',
      path: join(folders.workspace, '.loom/agents/broken.md'),
      problem:
        'description: missing (say in one line what the agent is for); effort: must be low, medium, high or max (got "huge")',
    },
  ]);

  const table = await runLoom(['agents', 'list'], { home: folders.home, cwd: folders.workspace });
  assert.equal(table.code, 0, table.stderr);
  const rows = table.stdout.split('\n');
  assert.match(rows[0] ?? '', /^NAME +ORIGIN +DESCRIPTION +PATH$/);
  assert.ok(
    rows.some((row) =>
      /^reviewer +claude \(hides personal\) +Reviews the change and lists what is wrong with it +\S+\/\.claude\/agents\/reviewer\.md$/.test(
        row,
      ),
    ),
    table.stdout,
  );
  assert.ok(rows.some((row) => /^Explore +builtin +Read-only and quick.* +-$/.test(row)));
  assert.ok(
    rows.some((row) => /^broken +project +error: description: missing .*broken\.md$/.test(row)),
    table.stdout,
  );
});
