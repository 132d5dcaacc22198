import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAgentFile } from '../../src/project/agent-file.js';

const file = (front: string, body = 'You review diffs.') => `---\n${front}\n---\n${body}\n`;

test('an agent file: front matter fields and the body as its prompt', () => {
  const parsed = parseAgentFile(
    file(
      'name: reviewer\ndescription: Reviews a diff\ntools: [read_file, grep]\nmodel: openai:gpt-5\neffort: high',
      '\nYou are a strict reviewer.\n\nSay what is wrong.',
    ),
    'reviewer',
  );
  assert.deepEqual(parsed, {
    kind: 'valid',
    type: {
      name: 'reviewer',
      description: 'Reviews a diff',
      prompt: 'You are a strict reviewer.\n\nSay what is wrong.',
      tools: ['read_file', 'grep'],
      model: 'openai:gpt-5',
      effort: 'high',
    },
  });
});

test("Claude Code's form: tools as a comma-separated string of its names, model inherit, extra keys ignored", () => {
  const parsed = parseAgentFile(
    file(
      'name: tester\ndescription: Runs the tests\ntools: Read, Grep, Glob, Bash, Edit, MultiEdit, Task, mcp__github__get_pr\nmodel: inherit\ncolor: blue',
    ),
    'tester',
  );
  assert.equal(parsed.kind, 'valid');
  if (parsed.kind !== 'valid') return;
  assert.deepEqual(parsed.type.tools, [
    'read_file',
    'grep',
    'glob',
    'bash',
    'edit_file',
    'subagent',
    'mcp__github__get_pr',
  ]);
  assert.equal(parsed.type.model, undefined, 'inherit leaves the model to the caller');
  assert.equal('color' in parsed.type, false);
});

test("Claude Code's model names (sonnet, opus, haiku) leave the model to the caller; a name without a provider is refused", () => {
  for (const model of ['sonnet', 'opus', 'haiku']) {
    const parsed = parseAgentFile(file(`description: d\nmodel: ${model}`), 'a');
    assert.equal(parsed.kind, 'valid', model);
    if (parsed.kind === 'valid') assert.equal(parsed.type.model, undefined);
  }
  const parsed = parseAgentFile(file('description: d\nmodel: gpt-5'), 'a');
  assert.equal(parsed.kind, 'invalid');
  if (parsed.kind === 'invalid')
    assert.match(parsed.problem, /^model: "gpt-5" is not a model spec: write provider:model/);
});

test('name defaults to the file name; an empty body keeps Loom’s own persona (empty prompt)', () => {
  const parsed = parseAgentFile('---\ndescription: d\n---\n', 'helper');
  assert.deepEqual(parsed, {
    kind: 'valid',
    type: { name: 'helper', description: 'd', prompt: '' },
  });
});

test('a malformed file names each field at fault and the name it claims', () => {
  const parsed = parseAgentFile(
    file('name: reviewer\neffort: huge\ntools: [Read, 3]'),
    'reviewer-file',
  );
  assert.deepEqual(parsed, {
    kind: 'invalid',
    name: 'reviewer',
    problem:
      'description: missing (say in one line what the agent is for); tools: item 2 must be a tool name such as Read or read_file (got 3); effort: must be low, medium, high or max (got "huge")',
  });
});

test('a file without front matter, with broken YAML, or with a bad name says so', () => {
  const none = parseAgentFile('You review diffs.\n', 'reviewer');
  assert.equal(none.kind, 'invalid');
  if (none.kind === 'invalid')
    assert.match(none.problem, /^no front matter: start the file with a --- line/);
  // Not `name: text` lines either (the `- item`), so not read as Claude Code reads such lines.
  const broken = parseAgentFile('---\ndescription: [unclosed\n- item\n---\nbody\n', 'reviewer');
  assert.equal(broken.kind, 'invalid');
  if (broken.kind === 'invalid') {
    assert.equal(broken.name, 'reviewer');
    assert.equal(
      broken.problem,
      'line 3: front matter is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    );
  }
  const list = parseAgentFile('---\n- a\n- b\n---\n', 'x');
  assert.equal(list.kind, 'invalid');
  if (list.kind === 'invalid') {
    assert.equal(list.problem, 'line 2: front matter must be a mapping of fields (name: value)');
  }
  const open = parseAgentFile('---\nname: reviewer\ndescription: d\nYou review diffs.\n', 'x');
  assert.equal(open.kind, 'invalid');
  if (open.kind === 'invalid') {
    assert.equal(
      open.problem,
      'line 1: front matter opened with --- is never closed by a --- line',
    );
  }
  const name = parseAgentFile(file('name: a b\ndescription: d'), 'x');
  assert.equal(name.kind, 'invalid');
  if (name.kind === 'invalid') assert.match(name.problem, /^name: must be 1-64 letters/);
});

test('front matter with CRLF line endings and a byte-order mark is read', () => {
  const parsed = parseAgentFile(
    '\uFEFF---\r\nname: r\r\ndescription: d\r\n---\r\nPrompt.\r\n',
    'r',
  );
  assert.equal(parsed.kind, 'valid');
  if (parsed.kind === 'valid') assert.equal(parsed.type.prompt, 'Prompt.');
});

test('front matter that expands YAML aliases past the limit is refused, naming the fix', () => {
  const aliases = Array.from({ length: 25 }, () => '*a').join(', ');
  const parsed = parseAgentFile(file(`description: d\nx: &a [1, 2]\ny: [${aliases}]`), 'hostile');
  assert.equal(parsed.kind, 'invalid');
  if (parsed.kind === 'invalid') {
    assert.match(
      parsed.problem,
      /^front matter expands YAML aliases \(\*name\) more than 20 times/,
    );
  }
});

test("Claude Code's text lines that YAML refuses are read as it reads them", () => {
  const parsed = parseAgentFile(
    file('description: Use when: a diff is ready\ntools: Read, Grep'),
    'reviewer',
  );
  assert.equal(parsed.kind, 'valid');
  if (parsed.kind === 'valid') {
    assert.equal(parsed.type.description, 'Use when: a diff is ready');
    assert.deepEqual(parsed.type.tools, ['read_file', 'grep']);
  }
});
