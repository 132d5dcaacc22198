/**
 * `allowed-tools` as Claude Code writes it: entries in Claude Code's names or Loom's, bash
 * patterns applied to each simple command of a line, other tools' patterns not applied.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type AllowedTool,
  bashPatternMatches,
  parseAllowedTools,
  refusal,
} from '../../src/project/command-allowed-tools.js';

function parsed(value: unknown): AllowedTool[] {
  const entries = parseAllowedTools(value);
  assert.ok(Array.isArray(entries), JSON.stringify(entries));
  return entries;
}

test("entries split at commas and blanks outside parentheses, as text or a list; names become Loom's", () => {
  assert.deepEqual(parsed('Bash(git add:*), Bash(git commit -m:*) Read,Edit mcp__github'), [
    { written: 'Bash(git add:*)', tool: 'bash', pattern: 'git add:*' },
    { written: 'Bash(git commit -m:*)', tool: 'bash', pattern: 'git commit -m:*' },
    { written: 'Read', tool: 'read_file' },
    { written: 'Edit', tool: 'edit_file' },
    { written: 'mcp__github', tool: 'mcp__github' },
  ]);
  assert.deepEqual(parsed(['Grep', 'Bash(*)', 'glob']), [
    { written: 'Grep', tool: 'grep' },
    { written: 'Bash(*)', tool: 'bash' },
    { written: 'glob', tool: 'glob' },
  ]);
  assert.deepEqual(parseAllowedTools('Read(src'), {
    problem:
      '"Read(src" is not a tool name with an optional (pattern), such as Bash(git status:*) or read_file',
  });
  assert.deepEqual(parseAllowedTools({ Bash: true }), {
    problem: 'must be text or a list of tool names',
  });
});

test('PREFIX:* is the prefix and any words after it; * matches any text; otherwise the whole command', () => {
  assert.ok(bashPatternMatches('git add:*', 'git add'));
  assert.ok(bashPatternMatches('git add:*', 'git   add src/a.ts'));
  assert.ok(!bashPatternMatches('git add:*', 'git addx'));
  assert.ok(bashPatternMatches('npm run *', 'npm run test'));
  assert.ok(bashPatternMatches('npm test', 'npm test'));
  assert.ok(!bashPatternMatches('npm test', 'npm test --watch'));
});

test('a call is refused when its tool is not named, or a bash line holds a command outside the patterns', () => {
  const allowed = parsed('Bash(git add:*), Bash(git status:*), Read(src/**), mcp__github');
  assert.equal(refusal(allowed, 'read_file', { path: 'elsewhere.txt' }), undefined);
  assert.equal(refusal(allowed, 'mcp__github__create_issue', {}), undefined);
  assert.equal(refusal(allowed, 'write_file', {}), 'write_file is not among them');
  assert.equal(refusal(allowed, 'bash', { command: 'git add . && git status' }), undefined);
  assert.equal(
    refusal(allowed, 'bash', { command: 'git add . && rm -rf build' }),
    'the command "rm -rf build" matches none of Bash(git add:*), Bash(git status:*)',
  );
  assert.match(refusal(allowed, 'bash', { command: 'git add `ls`' }) ?? '', /cannot be checked/);
  assert.equal(refusal(parsed('Bash'), 'bash', { command: 'anything at all' }), undefined);
});
