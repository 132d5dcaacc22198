/**
 * Skills and custom commands through bin/loom, in a repository prepared for Claude Code
 * (`.claude/commands/fix.md`, `.claude/skills/release/SKILL.md`): the skills section reaches the
 * model's system prompt, the model's `skill {name: 'release'}` gets the body, and `loom run
 * "/fix 42"` sends the substituted body with the command's allowed-tools applied to that turn.
 * A malformed skill is reported on stderr by file, line and field while the run goes on.
 * Needs `npm run build`.
 */
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import { CLAUDE_COMMAND_AND_SKILL } from '../helpers/claude-repository.js';
import { writeTree } from '../helpers/file-tree.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import {
  ndjsonLines,
  requestPrompts,
  sessionIdOf,
  sessionPaths,
  sessions,
  toolResults,
} from '../helpers/session-files.js';
import { runScripted, scriptedFolders } from './loom-process.js';

type UserMessage = SessionEvent<'user/message'>['data'];

test('loom run "/fix 42": the substituted body is sent, skill release answers with its body, the section reached the prompt', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^Fix issue #(\\d+)',
        [{ name: 'skill', arguments: { name: 'release' } }],
        'skill said: {{lastToolResult}}',
      ),
    ],
  });
  writeTree(folders.workspace, CLAUDE_COMMAND_AND_SKILL);
  const result = await runScripted(folders, '/fix 42', { json: true });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr.includes('loom: skill'), false, result.stderr);
  const sessionId = sessionIdOf(result.stdout);
  const lines = ndjsonLines(result.stdout);
  const run = lines.find((line) => line.type === 'command/run');
  assert.deepEqual(run?.data, {
    name: 'fix',
    file: '.claude/commands/fix.md',
    arguments: '42',
    allowedTools: ['Read', 'Skill', 'Bash(git status:*)'],
  });
  const [session] = sessions(folders.home).filter((entry) => entry.header.sessionId === sessionId);
  assert.ok(session);
  const message = session.events.find((event) => event.type === 'user/message')
    ?.data as UserMessage;
  assert.equal(message.text, 'Fix issue #42 following our release rules.');
  const [path] = sessionPaths(folders.home);
  const [first] = requestPrompts(session.events, dirname(path as string));
  assert.ok(first);
  assert.match(
    first.system,
    /# Skills\n.*\n- release: How this project cuts a release; use it for any release or fix that ships/,
  );
  assert.deepEqual(
    first.tools.map((tool) => tool.name).sort(),
    ['bash', 'read_file', 'skill'],
    "the command's allowed-tools held for its turn",
  );
  const [skill] = toolResults(session.events, 'skill');
  assert.equal(skill?.isError, false);
  assert.match(skill?.content ?? '', /^skill release \(\.claude\/skills\/release\/SKILL\.md\)/);
  assert.match(skill?.content ?? '', /- \.claude\/skills\/release\/checklist\.md/);
  assert.match(
    skill?.content ?? '',
    /Bump the version in VERSION, tag it vX\.Y\.Z, push the tag\.$/,
  );
  const answer = session.events.filter((event) => event.type === 'assistant/message').at(-1);
  assert.match(
    (answer?.data as { text?: string } | undefined)?.text ?? '',
    /^skill said: skill release/,
  );
});

test('loom run: a prompt starting with an unknown /NAME is sent as written; a malformed skill is reported and the others load', async () => {
  const folders = scriptedFolders({ default: { reply: 'got: {{prompt}}' } });
  writeTree(folders.workspace, {
    ...CLAUDE_COMMAND_AND_SKILL,
    '.claude/skills/broken/SKILL.md': '---\nname: broken\n---\nno description\n',
  });
  const result = await runScripted(folders, '/etc/hosts is what file?');
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /got: \/etc\/hosts is what file\?/);
  assert.match(
    result.stderr,
    /loom: skill .*\/\.claude\/skills\/broken\/SKILL\.md: description: is missing; the skill is left out\n/,
  );
  const [session] = sessions(folders.home);
  assert.ok(session);
  const [path] = sessionPaths(folders.home);
  const [first] = requestPrompts(session.events, dirname(path as string));
  assert.match(first?.system ?? '', /- release: /);
  assert.doesNotMatch(first?.system ?? '', /- broken/);
  assert.ok(
    first?.tools.some((tool) => tool.name === 'write_file'),
    'no command: every tool',
  );
});
