/**
 * What a hook is matched against and reads, and what its ending means: a `.claude/` matcher of
 * Claude Code's names (each alternative of `Edit|Write`) takes Loom's tools, its payload speaks
 * Claude Code's field names, and exit codes and JSON output decide as in Claude Code.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HookOrigin } from '../../src/project/hook-contract.js';
import { combinedVerdict, hookVerdict } from '../../src/project/hook-outcome.js';
import {
  toolInputFor,
  toolNameFor,
  toolNamesFor,
  toolResponseFor,
} from '../../src/project/hook-payload.js';
import type { HookProcessResult } from '../../src/project/hook-process.js';
import { matcherPattern } from '../../src/project/hook-settings.js';

const LOOM_TOOLS = ['bash', 'read_file', 'write_file', 'edit_file', 'glob', 'grep', 'subagent'];

function matched(origin: HookOrigin, matcher: string | undefined): string[] {
  const pattern = matcherPattern(matcher);
  return LOOM_TOOLS.filter(
    (tool) => !pattern || toolNamesFor(origin, tool).some((name) => pattern.test(name)),
  );
}

test('a .claude matcher names Claude Code tools: each alternative maps to Loom’s tool', () => {
  assert.deepEqual(matched('claude', 'Edit|Write'), ['write_file', 'edit_file']);
  assert.deepEqual(matched('claude', 'Bash'), ['bash']);
  assert.deepEqual(matched('claude', 'MultiEdit'), ['edit_file']);
  assert.deepEqual(matched('claude', 'Task'), ['subagent']);
  assert.deepEqual(matched('claude', 'Notebook.*|Read'), ['read_file']);
  // The whole name: `Bash` is not `BashOutput`, nor a part of a longer name.
  assert.deepEqual(matched('claude', 'Edi'), []);
  assert.deepEqual(matched('claude', '*'), LOOM_TOOLS);
  assert.deepEqual(matched('claude', ''), LOOM_TOOLS);
  assert.deepEqual(matched('claude', undefined), LOOM_TOOLS);
});

test('a config matcher names Loom’s tools only', () => {
  assert.deepEqual(matched('config', 'edit_file|write_file'), ['write_file', 'edit_file']);
  assert.deepEqual(matched('config', '.*_file'), ['read_file', 'write_file', 'edit_file']);
  assert.deepEqual(matched('config', 'Bash'), []);
});

test('a .claude hook reads Claude Code’s tool names and field names, paths made absolute', () => {
  assert.equal(toolNameFor('claude', 'bash'), 'Bash');
  assert.equal(toolNameFor('claude', 'read_file'), 'Read');
  assert.equal(toolNameFor('config', 'read_file'), 'read_file');
  assert.deepEqual(toolInputFor('claude', 'bash', { command: 'ls', timeout_ms: 5000 }, '/w'), {
    command: 'ls',
    timeout: 5000,
  });
  assert.deepEqual(toolInputFor('claude', 'read_file', { path: 'src/a.ts', limit: 3 }, '/w'), {
    file_path: '/w/src/a.ts',
    limit: 3,
  });
  assert.deepEqual(
    toolInputFor(
      'claude',
      'edit_file',
      { path: '/w/a.ts', old_string: 'a', new_string: 'b', replace_all: true },
      '/w',
    ),
    { file_path: '/w/a.ts', old_string: 'a', new_string: 'b', replace_all: true },
  );
  assert.deepEqual(
    toolInputFor('claude', 'grep', { pattern: 'x', ignore_case: true, max_results: 9 }, '/w'),
    { pattern: 'x', '-i': true, head_limit: 9 },
  );
  assert.deepEqual(toolInputFor('config', 'read_file', { path: 'src/a.ts' }, '/w'), {
    path: 'src/a.ts',
  });
});

test('tool_response: the model’s text, and Claude Code’s fields for Bash and the file tools', () => {
  const ok = { content: 'hi\n[exit code: 0]', isError: false };
  assert.deepEqual(toolResponseFor('claude', 'bash', { command: 'echo hi' }, ok), {
    content: ok.content,
    is_error: false,
    stdout: ok.content,
    stderr: '',
    interrupted: false,
    isImage: false,
  });
  assert.deepEqual(
    toolResponseFor(
      'claude',
      'write_file',
      { file_path: '/w/a.txt' },
      { content: 'x', isError: false },
    ),
    { content: 'x', is_error: false, filePath: '/w/a.txt', success: true },
  );
  assert.deepEqual(toolResponseFor('config', 'bash', { command: 'x' }, ok), {
    content: ok.content,
    is_error: false,
  });
});

function ended(exitCode: number | null, stdout = '', stderr = ''): HookProcessResult {
  return { exitCode, stdout, stderr, ms: 3, timedOut: false, cancelled: false };
}

test('exit 2 blocks with stderr as the reason where the event can be blocked', () => {
  assert.deepEqual(hookVerdict('PreToolUse', ended(2, 'ignored', 'no rm here\n')), {
    decision: 'block',
    reason: 'no rm here',
  });
  assert.equal(hookVerdict('Stop', ended(2, '', 'go on')).decision, 'block');
  assert.equal(hookVerdict('UserPromptSubmit', ended(2, '', 'no')).decision, 'block');
  // Nothing to block: a warning, and the action goes on.
  assert.deepEqual(hookVerdict('Notification', ended(2, '', 'oops')), {
    decision: 'warning',
    reason: 'oops',
  });
});

test('another exit code, a timeout or a failed start is a warning; the action goes on', () => {
  assert.deepEqual(hookVerdict('PreToolUse', ended(1, '', 'broken script')), {
    decision: 'warning',
    reason: 'broken script',
  });
  assert.deepEqual(hookVerdict('PreToolUse', ended(3)), {
    decision: 'warning',
    reason: 'exit code 3',
  });
  const late = { ...ended(null), timedOut: true, ms: 1000 };
  assert.deepEqual(hookVerdict('PreToolUse', late), {
    decision: 'warning',
    reason: 'timed out after 1000 ms',
  });
});

test('exit 0: JSON decision, reason and context, Claude Code’s newer permissionDecision too', () => {
  assert.deepEqual(hookVerdict('PreToolUse', ended(0)), { decision: 'none' });
  assert.deepEqual(
    hookVerdict('PreToolUse', ended(0, '{"decision": "block", "reason": "not on main"}')),
    { decision: 'block', reason: 'not on main' },
  );
  assert.deepEqual(hookVerdict('PreToolUse', ended(0, '{"decision": "approve"}')), {
    decision: 'approve',
  });
  const specific = (decision: string) =>
    JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: decision,
        permissionDecisionReason: 'because',
      },
    });
  assert.deepEqual(hookVerdict('PreToolUse', ended(0, specific('deny'))), {
    decision: 'block',
    reason: 'because',
  });
  assert.deepEqual(hookVerdict('PreToolUse', ended(0, specific('ask'))), {
    decision: 'ask',
    reason: 'because',
  });
  assert.equal(hookVerdict('PreToolUse', ended(0, specific('allow'))).decision, 'approve');
  assert.deepEqual(
    hookVerdict(
      'PostToolUse',
      ended(0, '{"hookSpecificOutput": {"additionalContext": "lint is clean"}}'),
    ),
    { decision: 'none', context: 'lint is clean' },
  );
});

test('plain stdout is context for UserPromptSubmit and SessionStart only', () => {
  assert.deepEqual(hookVerdict('UserPromptSubmit', ended(0, 'branch: main\n')), {
    decision: 'none',
    context: 'branch: main',
  });
  assert.deepEqual(hookVerdict('SessionStart', ended(0, 'today is Monday')), {
    decision: 'none',
    context: 'today is Monday',
  });
  assert.deepEqual(hookVerdict('PreToolUse', ended(0, 'chatter')), { decision: 'none' });
});

test('hooks of one event combine: any block blocks, then ask, then approve', () => {
  assert.deepEqual(
    combinedVerdict([
      { decision: 'approve' },
      { decision: 'block', reason: 'first' },
      { decision: 'warning', reason: 'broken' },
      { decision: 'block', reason: 'second' },
      { decision: 'none', context: 'note' },
    ]),
    { decision: 'block', reason: 'first\nsecond', context: 'note' },
  );
  assert.deepEqual(
    combinedVerdict([{ decision: 'approve' }, { decision: 'ask', reason: 'sure?' }]),
    {
      decision: 'ask',
      reason: 'sure?',
    },
  );
  assert.deepEqual(combinedVerdict([{ decision: 'warning', reason: 'x' }]), { decision: 'none' });
});
