/**
 * Instructions through bin/loom (SPEC §10): a repository prepared for Claude Code (a CLAUDE.md
 * with an `@import`) and the person's `$LOOM_HOME/AGENTS.md` reach the system prompt of a
 * `loom run` and of the subagent it starts, as logged; a broken import is one line on stderr and
 * the run goes on; `loom init` writes AGENTS.md with the scripted model, refuses to replace it
 * without --force, and the next run reads it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeTree } from '../helpers/file-tree.js';
import { callsThenReply, subagentCall } from '../helpers/scripted-turns.js';
import { requestPrompts, sessionPaths, sessions } from '../helpers/session-files.js';
import { runLoom, runScripted, type ScriptedFolders, scriptedFolders } from './loom-process.js';

/** A repository prepared for Claude Code: CLAUDE.md importing docs/conventions.md. */
function claudeRepository(folders: ScriptedFolders, claude = '# Project\n@docs/conventions.md\n') {
  mkdirSync(join(folders.workspace, '.git'));
  writeTree(folders.workspace, {
    'CLAUDE.md': claude,
    'docs/conventions.md': 'Always run the linter: npm run lint-for-marker-7361.\n',
  });
  writeFileSync(join(folders.home, 'AGENTS.md'), 'Answer in British English (personal-5120).\n');
}

function systemPrompts(home: string): Map<number, string[]> {
  const folder = join(home, 'sessions');
  const byDepth = new Map<number, string[]>();
  for (const { header, events } of sessions(home)) {
    const prompts = requestPrompts(events, folder).map((request) => request.system);
    byDepth.set(header.delegationDepth, [
      ...(byDepth.get(header.delegationDepth) ?? []),
      ...prompts,
    ]);
  }
  return byDepth;
}

test('CLAUDE.md with an @import and the personal AGENTS.md reach the run and its subagent', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply('delegate', [subagentCall('check', 'check the conventions')], 'delegated'),
      { when: 'check the conventions', reply: 'checked' },
    ],
  });
  claudeRepository(folders);
  const result = await runScripted(folders, 'delegate');
  assert.equal(result.code, 0, result.stderr);
  assert.doesNotMatch(result.stderr, /instructions/);
  const prompts = systemPrompts(folders.home);
  const root = prompts.get(0) ?? [];
  const child = prompts.get(1) ?? [];
  assert.ok(root.length >= 2 && child.length >= 1, 'requests of the root and of the child');
  for (const system of [...root, ...child]) {
    const personal = system.indexOf(`Instructions from: ${join(folders.home, 'AGENTS.md')}`);
    const project = system.indexOf(`Instructions from: ${join(folders.workspace, 'CLAUDE.md')}`);
    assert.ok(personal > 0 && project > personal, system);
    assert.ok(system.indexOf('personal-5120') > personal, system);
    assert.ok(
      system.indexOf('# Project\nAlways run the linter: npm run lint-for-marker-7361.') > project,
      system,
    );
    assert.doesNotMatch(system, /@docs\/conventions\.md/);
  }
});

test('a missing import is one line on stderr; the run goes on with the rest', async () => {
  const folders = scriptedFolders({ default: { reply: 'done' } });
  claudeRepository(folders, 'kept-text-4410\n@docs/gone.md\n');
  const result = await runScripted(folders, 'hello');
  assert.equal(result.code, 0, result.stderr);
  assert.equal(
    result.stderr
      .split('\n')
      .filter((line) => line.includes('instructions'))
      .join('\n'),
    `loom: instructions: CLAUDE.md: @docs/gone.md: no such file docs/gone.md (left out)`,
  );
  assert.match(systemPrompts(folders.home).get(0)?.[0] ?? '', /kept-text-4410\n@docs\/gone\.md/);
});

test('loom init writes AGENTS.md, refuses to replace it without --force, and the next run reads it', async () => {
  const written = '# Agents\nBuild with make-marker-2209.\n';
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        'AGENTS\\.md exists already',
        [{ name: 'write_file', arguments: { path: 'AGENTS.md', content: 'replaced-3321\n' } }],
        'replaced AGENTS.md',
      ),
      callsThenReply(
        '^Write an AGENTS\\.md',
        [{ name: 'write_file', arguments: { path: 'AGENTS.md', content: written } }],
        'wrote AGENTS.md',
      ),
    ],
    default: { reply: 'ok' },
  });
  const model = `scripted:${folders.model}`;
  const init = (...args: string[]) =>
    runLoom(['init', '--model', model, '--cwd', folders.workspace, ...args], {
      home: folders.home,
    });

  const first = await init();
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /wrote AGENTS\.md/);
  assert.match(first.stderr, /^wrote AGENTS\.md \(session \S+\)$/m);
  assert.equal(readFileSync(join(folders.workspace, 'AGENTS.md'), 'utf8'), written);
  const events = sessions(folders.home)[0]?.events ?? [];
  const prompt = events.find((event) => event.type === 'user/message')?.data as { text: string };
  assert.match(
    prompt.text,
    /^Write an AGENTS\.md for this repository[^\n]*\n[\s\S]*build, test[\s\S]*Layout[\s\S]*Conventions/,
  );

  const sessionsBefore = sessionPaths(folders.home).length;
  const refused = await init();
  assert.equal(refused.code, 1);
  assert.equal(
    refused.stderr,
    `loom init: ${join(folders.workspace, 'AGENTS.md')} already exists; loom init --force replaces it (the agent reads it first and keeps what still holds)\n`,
  );
  assert.equal(sessionPaths(folders.home).length, sessionsBefore, 'no session was started');
  assert.equal(readFileSync(join(folders.workspace, 'AGENTS.md'), 'utf8'), written);

  const run = await runScripted(folders, 'hello');
  assert.equal(run.code, 0, run.stderr);
  // Ids sort by the second they were made in, so two sessions of one second may sort either way.
  const hello = sessions(folders.home).find((session) =>
    session.events.some(
      (event) => event.type === 'user/message' && (event.data as { text: string }).text === 'hello',
    ),
  );
  const [request] = requestPrompts(hello?.events ?? [], join(folders.home, 'sessions'));
  assert.match(request?.system ?? '', /Build with make-marker-2209\./);

  const forced = await init('--force');
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(readFileSync(join(folders.workspace, 'AGENTS.md'), 'utf8'), 'replaced-3321\n');
});

test('loom init says so when the agent did not write AGENTS.md', async () => {
  const folders = scriptedFolders({ default: { reply: 'I would rather not' } });
  const result = await runLoom(
    ['init', '--model', `scripted:${folders.model}`, '--cwd', folders.workspace],
    { home: folders.home },
  );
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /^loom init: the agent ended without writing AGENTS\.md \(session \S+\)$/m,
  );
});

test('loom help lists init with its options', async () => {
  const folders = scriptedFolders({ default: { reply: 'ok' } });
  const help = await runLoom(['help'], { home: folders.home });
  assert.match(
    help.stdout,
    /^ {2}init \[options\] +write the workspace's AGENTS\.md in one agent turn$/m,
  );
  const initHelp = await runLoom(['help', 'init'], { home: folders.home });
  assert.match(initHelp.stdout, /--force +replace an existing AGENTS\.md/);
});
