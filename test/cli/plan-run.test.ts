import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runLoom, runScripted, scriptedFolders } from './loom-process.js';

const PLAN = '1. Write notes.txt\n2. Check it';

/** Tries to write, presents the plan, then (once approved) writes and answers. */
const planningModel = {
  rules: [
    {
      when: 'add notes',
      steps: [
        { tools: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'early' } }] },
        { tools: [{ name: 'exit_plan_mode', arguments: { plan: PLAN } }] },
        { tools: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'approved' } }] },
        { reply: 'notes written' },
      ],
    },
  ],
};

test('loom run --plan refuses the write, prints the presented plan and exits 0', async () => {
  const folders = scriptedFolders(planningModel);
  const { code, stdout, stderr } = await runScripted(folders, 'add notes', { args: ['--plan'] });
  assert.equal(code, 0, stderr);
  assert.match(stdout, /Plan \(not approved/);
  assert.ok(stdout.includes(PLAN), stdout);
  assert.match(stderr, /not allowed in plan mode/);
  assert.equal(existsSync(join(folders.workspace, 'notes.txt')), false);
  assert.doesNotMatch(stdout, /notes written/);
});

test('loom run --plan headless prints the session id and the commands that continue it', async () => {
  const folders = scriptedFolders(planningModel);
  const { code, stdout, stderr } = await runScripted(folders, 'add notes', { args: ['--plan'] });
  assert.equal(code, 0, stderr);
  const id = /in session (\S+):/.exec(stdout)?.[1] ?? '';
  assert.ok(id, stdout);
  assert.ok(stdout.includes(`loom run --session ${id} --approve-plan`), stdout);
  const shown = await runLoom(['sessions', 'show', id, '--json'], { home: folders.home });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /"plan\/presented"/);
});

test('loom run --plan --approve-plan approves the plan and the turn goes on to write', async () => {
  const folders = scriptedFolders(planningModel);
  const { code, stdout, stderr } = await runScripted(folders, 'add notes', {
    args: ['--plan', '--approve-plan'],
    json: true,
  });
  assert.equal(code, 0, stderr);
  const events = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
  const results = events.filter((event) => event.type === 'tool/result');
  assert.equal(results[0]?.data.isError, true, 'the write before approval is refused');
  assert.deepEqual(
    events.filter((event) => event.type === 'plan/mode').map((event) => event.data.mode),
    ['plan', 'default'],
  );
  assert.deepEqual(events.find((event) => event.type === 'plan/approved')?.data, { plan: PLAN });
  assert.equal(readFileSync(join(folders.workspace, 'notes.txt'), 'utf8'), 'approved');
});

test('loom run --plan: a subagent cannot write either, and nothing starts in the background', async () => {
  const folders = scriptedFolders({
    rules: [
      {
        when: '^child writes$',
        steps: [
          { tools: [{ name: 'write_file', arguments: { path: 'child.txt', content: 'x' } }] },
          { reply: 'child: {{lastToolResult}}' },
        ],
      },
      {
        when: 'explore',
        steps: [
          {
            tools: [
              { name: 'subagent', arguments: { description: 'look', prompt: 'child writes' } },
            ],
          },
          {
            tools: [
              { name: 'bash', arguments: { command: 'touch bg.txt', run_in_background: true } },
            ],
          },
          { reply: 'done exploring' },
        ],
      },
    ],
  });
  const { code, stdout, stderr } = await runScripted(folders, 'explore', {
    args: ['--plan'],
    json: true,
  });
  assert.equal(code, 0, stderr);
  const results = stdout
    .trim()
    .split('\n')
    .map(
      (line) =>
        JSON.parse(line) as {
          type: string;
          data: { name?: string; content?: string; isError?: boolean };
        },
    )
    .filter((event) => event.type === 'tool/result')
    .map((event) => event.data);
  const subagent = results.find((result) => result.name === 'subagent');
  assert.match(subagent?.content ?? '', /child: .*not allowed in plan mode/s);
  const background = results.find((result) => result.name === 'bash');
  assert.equal(background?.isError, true);
  assert.match(background?.content ?? '', /run_in_background is not allowed in plan mode/);
  assert.equal(existsSync(join(folders.workspace, 'child.txt')), false);
  assert.equal(existsSync(join(folders.workspace, 'bg.txt')), false);
});
