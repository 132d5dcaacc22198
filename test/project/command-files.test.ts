/**
 * Reading custom commands: NAME.md in .loom/commands, .claude/commands and $LOOM_HOME/commands,
 * sub-folders as group:name, precedence, optional front matter, Claude Code's model ids and
 * allowed-tools, and fields Loom cannot honour making a command refuse to run.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCommands, modelSpecOf } from '../../src/project/command-files.js';
import { writeTree } from '../helpers/file-tree.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('commands load from the three folders; sub-folders give group:name; the project hides the personal', () => {
  const workspace = temporaryFolder();
  const home = temporaryFolder();
  writeTree(workspace, {
    '.claude/commands/fix.md':
      '---\ndescription: Fix an issue\nargument-hint: [issue-number]\nallowed-tools: Bash(git add:*), Bash(git status:*), Read\nmodel: claude-3-5-haiku-20241022\n---\nFix issue #$ARGUMENTS.\n',
    '.claude/commands/frontend/component.md': '# Make a component\n\nMake $1 in $2.\n',
    '.loom/commands/review.md': 'Review the diff (loom).\n',
    '.claude/commands/review.md': 'Review the diff (claude).\n',
    '.claude/commands/notes.txt': 'not a command\n',
  });
  writeTree(home, {
    'commands/review.md': 'Review the diff (personal).\n',
    'commands/standup.md': '---\nmodel: deepseek:deepseek-chat\n---\nWrite my standup.\n',
  });
  const catalog = loadCommands({ workspace, home });
  assert.deepEqual(
    catalog.list().map((command) => [command.name, command.origin, command.description]),
    [
      ['fix', 'claude', 'Fix an issue'],
      ['frontend:component', 'claude', 'Make a component'],
      ['review', 'project', 'Review the diff (loom).'],
      ['standup', 'personal', 'Write my standup.'],
    ],
  );
  const fix = catalog.find('fix');
  assert.equal(fix?.argumentHint, '[issue-number]');
  assert.equal(fix?.model, 'anthropic:claude-3-5-haiku-20241022');
  assert.equal(fix?.body, 'Fix issue #$ARGUMENTS.');
  assert.deepEqual(fix?.allowedTools, [
    { written: 'Bash(git add:*)', tool: 'bash', pattern: 'git add:*' },
    { written: 'Bash(git status:*)', tool: 'bash', pattern: 'git status:*' },
    { written: 'Read', tool: 'read_file' },
  ]);
  assert.equal(catalog.find('standup')?.model, 'deepseek:deepseek-chat');
  assert.deepEqual(
    catalog.hidden.map((entry) => [entry.file, entry.hiddenBy]),
    [
      [join(workspace, '.claude/commands/review.md'), join(workspace, '.loom/commands/review.md')],
      [join(home, 'commands/review.md'), join(workspace, '.loom/commands/review.md')],
    ],
  );
  assert.deepEqual(catalog.problems, []);
});

test('a field Loom cannot honour makes the command refuse to run; an unknown field is only reported', () => {
  const workspace = temporaryFolder();
  writeTree(workspace, {
    '.claude/commands/alias.md': '---\nmodel: sonnet\n---\nUse an alias.\n',
    '.claude/commands/tools.md': '---\nallowed-tools: 3\n---\nBad tools.\n',
    '.claude/commands/extra.md': '---\ndisable-model-invocation: true\n---\nFine.\n',
    '.claude/commands/broken.md': '---\ndescription: [\nnot a field\n---\nBroken.\n',
    '.claude/commands/hint.md':
      '---\nargument-hint: [pr-number] [priority]\ndescription: Review a PR\n---\nReview $1.\n',
    '.claude/commands/has space.md': 'Spaced.\n',
  });
  const catalog = loadCommands({ workspace, home: temporaryFolder() });
  assert.deepEqual(
    catalog.list().map((command) => command.name),
    ['alias', 'extra', 'hint', 'tools'],
  );
  assert.equal(catalog.find('hint')?.argumentHint, '[pr-number] [priority]');
  assert.equal(catalog.find('hint')?.description, 'Review a PR');
  assert.match(
    catalog.find('alias')?.problem ?? '',
    /alias\.md:2: model: "sonnet" is not a model spec: write provider:model .* to use the session's model$/,
  );
  assert.match(
    catalog.find('tools')?.problem ?? '',
    /tools\.md:2: allowed-tools: must be text or a list/,
  );
  assert.equal(catalog.find('extra')?.problem, undefined);
  const messages = catalog.problems.map(
    (problem) => `${problem.file.slice(workspace.length + 1)}: ${problem.message}`,
  );
  assert.equal(messages.length, 5, messages.join('\n'));
  assert.match(
    messages.join('\n'),
    /alias\.md: model: .*; \/alias refuses to run until it is fixed/,
  );
  assert.match(
    messages.join('\n'),
    /broken\.md: front matter is not valid YAML.*the command is left out/,
  );
  assert.match(
    messages.join('\n'),
    /extra\.md: disable-model-invocation: is not a field Loom reads .*left unread/,
  );
  assert.match(messages.join('\n'), /has space\.md: "has space" is not a command name .*left out/);
});

test('model: provider:model as written, claude-… ids as anthropic:…, inherit as none', () => {
  assert.equal(modelSpecOf('openai:gpt-4o-mini'), 'openai:gpt-4o-mini');
  assert.equal(modelSpecOf('claude-opus-4-1'), 'anthropic:claude-opus-4-1');
  assert.equal(modelSpecOf('inherit'), undefined);
  assert.ok(typeof modelSpecOf('haiku') === 'object');
});
