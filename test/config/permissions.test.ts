import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileRules, deniesOutright, matchesRule } from '../../src/config/permissions.js';
import type { PermissionRule } from '../../src/config/schema.js';
import { splitShellCommands } from '../../src/config/shell-commands.js';

/** A shell parameter expansion hiding a command substitution (built so no linter reads it as JS). */
const hiddenInExpansion = ['echo $', '{A:-$(rm -rf x)}'].join('');

/** Asserts that `check` gives `expected` for every line; a failure names its line. */
function assertEvery(check: (line: string) => boolean, expected: boolean, lines: string[]): void {
  for (const line of lines) assert.equal(check(line), expected, line);
}

function rule(action: PermissionRule['action'], command: string) {
  const [compiled] = compileRules([{ tool: 'bash', match: { command }, action }]);
  assert.ok(compiled);
  return (line: string) => matchesRule(compiled, 'bash', { command: line });
}

test('a command line splits into its simple commands at every operator, whitespace normalised', () => {
  const cases: Array<[string, string[]]> = [
    ['echo hi &&  rm  -rf x', ['echo hi', 'rm -rf x']],
    ['a; b', ['a', 'b']],
    ['a | b || c & d', ['a', 'b', 'c', 'd']],
    ['(cd x && rm -rf y)', ['cd x', 'rm -rf y']],
    ['echo one\nrm -rf x', ['echo one', 'rm -rf x']],
    ['echo $(rm -rf x)', ['echo', 'rm -rf x']],
    ['diff <(sort a) b', ['diff', 'sort a', 'b']],
    ['FOO=1 rm -rf x', ['rm -rf x']],
    ['if true; then rm -rf x; fi', ['true', 'rm -rf x']],
    ["echo 'a && b'", ['echo a && b']],
    ['r""m  -rf "x"', ['rm -rf x']],
    ['ls *.ts # list them', ['ls *.ts']],
  ];
  for (const [line, commands] of cases) {
    const split = splitShellCommands(line);
    assert.deepEqual(split.commands, commands, line);
    assert.equal(split.opaque, false, line);
  }
});

test('a line the parser cannot see into is marked opaque', () => {
  assertEvery((line) => splitShellCommands(line).opaque, true, [
    'echo `rm -rf x`',
    'echo "$(rm -rf x)"',
    hiddenInExpansion,
    'bash -c "rm -rf x"',
    'eval "rm -rf x"',
    'sudo rm -rf x',
    'find . | xargs rm -rf',
  ]);
});

test('a deny rule matches any simple command of a compound line', () => {
  const denies = rule('deny', 'rm  -rf *');
  assertEvery(denies, true, [
    'rm -rf x',
    'echo hi &&  rm  -rf x',
    'echo hi; rm -rf x',
    'ls | rm -rf x',
    'false || rm -rf x',
    '(cd / && rm -rf x)',
    'echo $(rm -rf x)',
    'echo hi\nrm -rf x',
    'X=1 rm -rf x',
  ]);
  assertEvery(denies, false, ['echo rm -rf x', "echo 'rm -rf x'", 'farm -rf x', 'rm -r x']);
});

test('a deny rule also matches a command hidden in backquotes, $(…) in quotes, or bash -c', () => {
  const denies = rule('deny', 'rm -rf *');
  assertEvery(denies, true, [
    'echo `rm -rf x`',
    'echo "$(rm   -rf x)"',
    'bash -c "rm -rf x"',
    hiddenInExpansion,
  ]);
  const exact = rule('deny', 'rm -rf /');
  assert.equal(exact('echo `rm -rf /`'), true);
  assert.equal(exact('echo `rm -rf /home`'), false);
});

test('an allow rule applies only when every simple command matches and none is hidden', () => {
  const allows = rule('allow', 'git *');
  assert.equal(allows('git status'), true);
  assert.equal(allows('git  add . && git commit -m x'), true);
  assert.equal(allows('git status && rm -rf x'), false);
  assert.equal(allows('git log $(rm -rf x)'), false);
  assert.equal(allows('git log "$(rm -rf x)"'), false);
  assert.equal(allows('git log `rm -rf x`'), false);
  const anything = rule('allow', '*');
  assert.equal(anything('echo `date`'), true);
});

test('other arguments and other tools still match the whole argument text', () => {
  const [compiled] = compileRules([
    { tool: 'write_file', match: { path: '*.env' }, action: 'deny' },
  ]);
  assert.ok(compiled);
  assert.equal(matchesRule(compiled, 'write_file', { path: 'a/.env' }), true);
  assert.equal(matchesRule(compiled, 'write_file', { path: 'a/.env && x' }), false);
  assert.equal(matchesRule(compiled, 'read_file', { path: 'a/.env' }), false);
  const [anyTool] = compileRules([{ tool: '*', match: { command: 'rm *' }, action: 'ask' }]);
  assert.ok(anyTool);
  assert.equal(matchesRule(anyTool, 'bash', { command: 'ls; rm x' }), true);
});

test('a tool pattern with * names every tool it matches, such as one MCP server’s', () => {
  const [github] = compileRules([{ tool: 'mcp__github__*', action: 'deny' }]);
  assert.ok(github);
  assert.equal(matchesRule(github, 'mcp__github__create_issue', {}), true);
  assert.equal(matchesRule(github, 'mcp__github__search', { query: 'x' }), true);
  assert.equal(matchesRule(github, 'mcp__gitlab__search', {}), false);
  assert.equal(matchesRule(github, 'bash', { command: 'ls' }), false);
  const [exact] = compileRules([{ tool: 'mcp__github__search', action: 'deny' }]);
  assert.ok(exact);
  assert.equal(matchesRule(exact, 'mcp__github__search_code', {}), false);
});

test('a tool is denied outright only when every rule for it up to the first one without patterns denies', () => {
  const denied = (rules: PermissionRule[], tool: string) =>
    deniesOutright(compileRules(rules), tool);
  assert.equal(denied([{ tool: 'bash', action: 'deny' }], 'bash'), true);
  assert.equal(denied([{ tool: 'b*', action: 'deny', match: { command: '*' } }], 'bash'), true);
  assert.equal(denied([{ tool: 'bash', action: 'deny' }], 'grep'), false);
  assert.equal(
    denied([{ tool: 'bash', action: 'deny', match: { command: 'rm *' } }], 'bash'),
    false,
  );
  assert.equal(
    denied(
      [
        { tool: 'bash', action: 'allow', match: { command: 'ls' } },
        { tool: 'bash', action: 'deny' },
      ],
      'bash',
    ),
    false,
  );
  assert.equal(
    denied(
      [
        { tool: 'bash', action: 'deny', match: { command: 'rm *' } },
        { tool: '*', action: 'deny' },
      ],
      'bash',
    ),
    true,
  );
  assert.equal(denied([{ tool: 'bash', action: 'ask' }], 'bash'), false);
});
