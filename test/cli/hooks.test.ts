/**
 * Hooks through `bin/loom run`, in a repository prepared for Claude Code: its
 * `.claude/settings.json` hook scripts run unchanged (a PreToolUse script that refuses `rm`, a
 * PostToolUse script that reads `tool_response`), every run is logged as `hook/run`, a block is
 * told on stderr; and config's `hooks:` can refuse a prompt.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { HookRunEvent } from '../../src/project/hook-contract.js';
import { writeTree } from '../helpers/file-tree.js';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import { sessions, toolResults } from '../helpers/session-files.js';
import { runScripted, scriptedFolders } from './loom-process.js';

/** Claude Code's usual layout: scripts in .claude/hooks/, found through $CLAUDE_PROJECT_DIR. */
const NO_RM = [
  '#!/bin/sh',
  '# Refuses any Bash command that runs rm (reads the event from stdin, as Claude Code sends it).',
  'input=$(cat)',
  `if printf '%s' "$input" | grep -q '"tool_name":"Bash"' && printf '%s' "$input" | grep -Eq '"command":"(.*[;&|] *)?rm '; then`,
  '  echo "rm is not allowed in this repository; move files to trash/ instead" >&2',
  '  exit 2',
  'fi',
  'exit 0',
].join('\n');

const RECORD_POST = [
  '#!/usr/bin/env node',
  "const { appendFileSync } = require('node:fs');",
  "let input = '';",
  "process.stdin.on('data', (chunk) => { input += chunk; });",
  "process.stdin.on('end', () => {",
  '  const event = JSON.parse(input);',
  '  event.sawSecret = process.env.FAKE_SERVICE_API_KEY !== undefined;',
  "  appendFileSync(process.env.CLAUDE_PROJECT_DIR + '/post.jsonl', JSON.stringify(event) + '\\n');",
  '});',
].join('\n');

const SETTINGS = {
  permissions: { allow: ['Bash(npm test)'] },
  hooks: {
    PreToolUse: [
      {
        matcher: 'Bash',
        hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/no-rm.sh' }],
      },
    ],
    PostToolUse: [
      {
        matcher: 'Bash|Write',
        hooks: [{ type: 'command', command: 'node "$CLAUDE_PROJECT_DIR"/.claude/hooks/record.js' }],
      },
    ],
  },
};

function claudeRepository(model: unknown) {
  const folders = scriptedFolders(model);
  writeTree(folders.workspace, {
    'x.txt': 'keep me\n',
    '.claude/settings.json': JSON.stringify(SETTINGS, null, 2),
    '.claude/hooks/no-rm.sh': NO_RM,
    '.claude/hooks/record.js': RECORD_POST,
  });
  chmodSync(join(folders.workspace, '.claude/hooks/no-rm.sh'), 0o755);
  return folders;
}

function hookRuns(home: string): HookRunEvent[] {
  return sessions(home).flatMap((session) =>
    session.events
      .filter((event) => event.type === 'hook/run')
      .map((event) => event.data as HookRunEvent),
  );
}

test('a .claude PreToolUse hook blocks rm: the file stays, the model reads the hook’s stderr', async () => {
  const folders = claudeRepository({
    rules: [callsThenReply('clean up', [bashCall('rm x.txt')], 'model saw: {{lastToolResult}}')],
  });
  const result = await runScripted(folders, 'clean up', {
    env: { FAKE_SERVICE_API_KEY: 'fake-secret-value-123456' },
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(folders.workspace, 'x.txt'), 'utf8'), 'keep me\n');
  assert.match(
    result.stdout,
    /model saw: bash was denied: a PreToolUse hook blocked it: rm is not allowed in this repository; move files to trash\/ instead/,
  );
  assert.match(
    result.stderr,
    /hook PreToolUse bash: "\$CLAUDE_PROJECT_DIR"\/\.claude\/hooks\/no-rm\.sh → blocked: rm is not allowed/,
  );
  const [run] = hookRuns(folders.home);
  assert.equal(run?.event, 'PreToolUse');
  assert.equal(run?.command, '"$CLAUDE_PROJECT_DIR"/.claude/hooks/no-rm.sh');
  assert.equal(run?.exitCode, 2);
  assert.equal(run?.decision, 'block');
  assert.equal(typeof run?.ms, 'number');
  // The blocked call never ran, so no PostToolUse hook ran for it.
  assert.equal(existsSync(join(folders.workspace, 'post.jsonl')), false);
});

test('a .claude PostToolUse hook gets tool_input and tool_response in Claude Code’s words', async () => {
  const folders = claudeRepository({
    rules: [
      callsThenReply(
        'build',
        [
          bashCall('echo hello from bash'),
          { name: 'write_file', arguments: { path: 'notes/out.txt', content: 'written\n' } },
        ],
        'built',
      ),
    ],
  });
  const result = await runScripted(folders, 'build', {
    env: { FAKE_SERVICE_API_KEY: 'fake-secret-value-123456' },
  });
  assert.equal(result.code, 0, result.stderr);
  const [bash, write] = readFileSync(join(folders.workspace, 'post.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(bash.hook_event_name, 'PostToolUse');
  assert.equal(bash.tool_name, 'Bash');
  assert.deepEqual(bash.tool_input, { command: 'echo hello from bash' });
  assert.match(bash.tool_response.stdout, /hello from bash/);
  assert.equal(bash.tool_response.is_error, false);
  assert.equal(bash.cwd, folders.workspace);
  assert.equal(bash.sawSecret, false, 'a hook saw a credential variable');
  assert.ok(String(bash.transcript_path).startsWith(join(folders.home, 'sessions')));
  assert.equal(write.tool_name, 'Write');
  assert.equal(write.tool_input.file_path, join(folders.workspace, 'notes/out.txt'));
  assert.equal(write.tool_response.filePath, join(folders.workspace, 'notes/out.txt'));
  assert.equal(write.tool_response.success, true);
  assert.deepEqual(
    hookRuns(folders.home).map(({ event, tool, decision }) => [event, tool, decision]),
    [
      ['PreToolUse', 'bash', 'none'],
      ['PostToolUse', 'bash', 'none'],
      ['PostToolUse', 'write_file', 'none'],
    ],
  );
  const [session] = sessions(folders.home);
  assert.deepEqual(
    toolResults(session?.events ?? []).map((data) => data.isError),
    [false, false],
  );
});

test('config hooks: a UserPromptSubmit hook refuses the prompt; loom run fails saying why', async () => {
  const folders = scriptedFolders({ default: { reply: 'answered anyway' } });
  writeFileSync(
    join(folders.home, 'config.yaml'),
    [
      'hooks:',
      '  UserPromptSubmit:',
      '    - hooks:',
      `        - { type: command, command: "grep -q deploy && { echo 'no deploys on Friday' >&2; exit 2; }; exit 0" }`,
    ].join('\n'),
  );
  const result = await runScripted(folders, 'deploy to production');
  assert.equal(result.code, 1);
  assert.doesNotMatch(result.stdout, /answered anyway/);
  assert.match(result.stderr, /a UserPromptSubmit hook refused the prompt: no deploys on Friday/);
  const passed = await runScripted(folders, 'write the changelog');
  assert.equal(passed.code, 0, passed.stderr);
  assert.match(passed.stdout, /answered anyway/);
});
