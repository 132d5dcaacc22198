/**
 * Loading hooks in both shapes: config.yaml's `hooks:` (strict, with the file's line of each
 * problem) and the `hooks` block of `.claude/settings.json` and `settings.local.json` (Claude
 * Code's files: other keys, other events and other kinds of hook are left to Claude Code).
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig, parseConfig } from '../../src/config/load-config.js';
import { claudeHooks, configHooks } from '../../src/project/hook-settings.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

function throwsWith(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    return (error as Error).message;
  }
  assert.fail('expected an error');
}

function claudeSettings(files: Record<string, unknown>): string {
  const workspace = temporaryFolder();
  mkdirSync(join(workspace, '.claude'));
  for (const [name, value] of Object.entries(files)) {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    writeFileSync(join(workspace, '.claude', name), text);
  }
  return workspace;
}

test('config hooks: groups by event, matcher anchored, timeout in seconds (default 60)', () => {
  const config = parseConfig(
    [
      'hooks:',
      '  PreToolUse:',
      '    - matcher: edit_file|write_file',
      '      hooks:',
      '        - { type: command, command: ./check.sh, timeout: 5 }',
      '  Stop:',
      '    - hooks:',
      '        - { type: command, command: ./stop.sh }',
    ].join('\n'),
    'config.yaml',
  );
  const groups = configHooks(config.hooks, 'config.yaml');
  assert.deepEqual(
    groups.map((group) => ({
      event: group.event,
      origin: group.origin,
      pattern: group.pattern?.source,
      hooks: group.hooks,
    })),
    [
      {
        event: 'PreToolUse',
        origin: 'config',
        pattern: '^(?:edit_file|write_file)$',
        hooks: [{ command: './check.sh', timeoutMs: 5000 }],
      },
      {
        event: 'Stop',
        origin: 'config',
        pattern: undefined,
        hooks: [{ command: './stop.sh', timeoutMs: 60_000 }],
      },
    ],
  );
});

test('config hooks: every problem is named with its line and field', () => {
  const message = throwsWith(() =>
    parseConfig(
      [
        'hooks:',
        '  PreToolUze: []',
        '  PostToolUse:',
        '    - matcher: "bash("',
        '      hooks:',
        '        - { type: prompt, command: x }',
        '        - { type: command, command: "", timeout: 0 }',
        '  Stop:',
        '    - hooks: []',
      ].join('\n'),
      'config.yaml',
    ),
  );
  assert.match(
    message,
    /config\.yaml:2: hooks\.PreToolUze: unknown field \(did you mean PreToolUse\?\)/,
  );
  assert.match(
    message,
    /config\.yaml:4: hooks\.PostToolUse\.0\.matcher: is not a regular expression/,
  );
  assert.match(message, /hooks\.PostToolUse\.0\.hooks\.0\.type: must be "command"/);
  assert.match(message, /hooks\.PostToolUse\.0\.hooks\.1\.command: must be a shell command/);
  assert.match(
    message,
    /hooks\.PostToolUse\.0\.hooks\.1\.timeout: must be a number of seconds above 0/,
  );
  assert.match(message, /hooks\.Stop\.0\.hooks: must list at least one hook/);
});

test('config hooks: a matcher with Claude Code tool names is refused, naming Loom’s', () => {
  const config = parseConfig(
    'hooks:\n  PreToolUse:\n    - matcher: Edit|Write\n      hooks: [{ type: command, command: x }]\n',
    'config.yaml',
  );
  const message = throwsWith(() => configHooks(config.hooks, 'config.yaml'));
  assert.match(message, /hooks\.PreToolUse\.0\.matcher: Edit, Write is Claude Code's name/);
  assert.match(message, /edit_file, write_file/);
  assert.match(message, /\.claude\/settings\.json/);
});

test('both config files’ hooks run: the personal file’s first, then the project’s', () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const hook = (command: string) =>
    `hooks:\n  Stop:\n    - hooks: [{ type: command, command: ${command} }]\n`;
  writeFileSync(join(home, 'config.yaml'), hook('personal'));
  mkdirSync(join(workspace, '.loom'));
  writeFileSync(join(workspace, '.loom', 'config.yaml'), hook('project'));
  const groups = configHooks(loadConfig(home, workspace).hooks, 'config.yaml');
  assert.deepEqual(
    groups.map((group) => group.hooks[0]?.command),
    ['personal', 'project'],
  );
});

test('.claude settings: hooks of settings.json then settings.local.json; other keys left alone', () => {
  const workspace = claudeSettings({
    'settings.json': {
      permissions: { allow: ['Bash(npm test)'] },
      env: { FOO: 'bar' },
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [{ type: 'command', command: 'shared.sh', timeout: 2 }],
          },
        ],
        SessionEnd: [{ hooks: [{ type: 'command', command: 'not-run.sh' }] }],
      },
    },
    'settings.local.json': {
      hooks: {
        PostToolUse: [
          {
            matcher: 'Edit|Write',
            hooks: [
              { type: 'prompt', prompt: 'is this fine?' },
              { type: 'command', command: 'local.sh' },
            ],
          },
        ],
      },
    },
  });
  const groups = claudeHooks(workspace);
  assert.deepEqual(
    groups.map((group) => ({
      event: group.event,
      origin: group.origin,
      file: group.file,
      pattern: group.pattern?.source,
      hooks: group.hooks,
    })),
    [
      {
        event: 'PreToolUse',
        origin: 'claude',
        file: join(workspace, '.claude', 'settings.json'),
        pattern: '^(?:Bash)$',
        hooks: [{ command: 'shared.sh', timeoutMs: 2000 }],
      },
      {
        event: 'PostToolUse',
        origin: 'claude',
        file: join(workspace, '.claude', 'settings.local.json'),
        pattern: '^(?:Edit|Write)$',
        hooks: [{ command: 'local.sh', timeoutMs: 60_000 }],
      },
    ],
  );
});

test('.claude settings: no file, or no hooks, is no hooks', () => {
  assert.deepEqual(claudeHooks(temporaryFolder()), []);
  assert.deepEqual(claudeHooks(claudeSettings({ 'settings.json': { model: 'opus' } })), []);
});

test('.claude settings: a broken file or hook is an error naming the file and field', () => {
  const broken = claudeSettings({ 'settings.json': '{"hooks": ' });
  assert.match(
    throwsWith(() => claudeHooks(broken)),
    /invalid Claude Code settings:\n.*\.claude\/settings\.json: is not valid JSON/,
  );
  const workspace = claudeSettings({
    'settings.json': {
      hooks: {
        PreToolUse: [
          { matcher: '(', hooks: [{ type: 'command', command: 'x' }] },
          { hooks: [{ type: 'command' }, { type: 'command', command: 'y', timeout: 'soon' }] },
        ],
        Stop: { hooks: [] },
      },
    },
  });
  const message = throwsWith(() => claudeHooks(workspace));
  assert.match(
    message,
    /settings\.json: hooks\.PreToolUse\.0\.matcher: is not a regular expression/,
  );
  assert.match(
    message,
    /settings\.json: hooks\.PreToolUse\.1\.hooks\.0\.command: must be a shell command/,
  );
  assert.match(
    message,
    /settings\.json: hooks\.PreToolUse\.1\.hooks\.1\.timeout: must be a number of seconds/,
  );
  assert.match(message, /settings\.json: hooks\.Stop: must be a list of \{matcher, hooks\}/);
});
