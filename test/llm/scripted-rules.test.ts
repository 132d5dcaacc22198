import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { UserError } from '../../src/base/errors.js';
import {
  loadScriptedModel,
  parseScriptedModel,
  scriptedRuleFields,
  validateScriptedModel,
} from '../../src/llm/scripted-rules.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const source = 'examples/m.json';

/** Runs `action`, expects one INVALID_SCRIPTED_MODEL error, and returns its problem lines. */
function problemsOf(action: () => unknown): string[] {
  try {
    action();
  } catch (error) {
    assert.ok(error instanceof UserError, `expected a UserError, got ${String(error)}`);
    assert.equal(error.code, 'INVALID_SCRIPTED_MODEL');
    return error.message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
  return assert.fail('expected a problem');
}

const parseProblems = (text: string) => problemsOf(() => parseScriptedModel(text, source));
const valueProblems = (value: unknown) => problemsOf(() => validateScriptedModel(value, source));

describe('parseScriptedModel', () => {
  test('accepts the example of the spec', () => {
    const text = JSON.stringify({
      rules: [
        { when: 'audit (.*)', reply: 'no issues in {{1}}' },
        { when: 'list files', output: { files: ['a.ts', 'b.ts'] } },
        { when: 'flaky', error: 'upstream 500' },
        { when: 'slow', delayMs: 300, reply: 'late' },
        { when: 'stuck', hang: true },
        {
          when: 'make a file',
          steps: [
            { tools: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'hi' } }] },
            { reply: 'wrote it: {{lastToolResult}}' },
          ],
        },
      ],
      default: { reply: 'ok: {{prompt}}' },
    });
    const model = parseScriptedModel(text, source);
    assert.equal(model.rules.length, 6);
    assert.deepEqual(model.default, { reply: 'ok: {{prompt}}' });
  });

  test('accepts every optional field where it belongs', () => {
    const model = parseScriptedModel(
      JSON.stringify({
        rules: [
          { when: 'a', times: 2, delayMs: 0, usage: { input: 1, output: 0 }, reply: '' },
          { when: 'b', reasoning: 'hmm', tools: [{ name: 't' }] },
          { when: 'c', reasoning: 'hmm', output: null },
          { when: 'd', error: 'busy', status: 429 },
          { when: 'e', delayMs: 5, steps: [{ hang: true, delayMs: 1 }] },
        ],
        default: { steps: [{ reply: 'x', usage: { input: 2, output: 3 } }] },
      }),
      source,
    );
    assert.equal(model.rules.length, 5);
  });

  test('accepts a context window, images and usage with cache tokens', () => {
    const model = parseScriptedModel(
      JSON.stringify({
        context: 16384,
        images: true,
        rules: [
          {
            when: 'a',
            reply: 'x',
            usage: { input: 100, output: 5, cacheRead: 60, cacheWrite: 30 },
          },
          { when: 'b', steps: [{ reply: 'y', usage: { input: 1, output: 1, cacheRead: 0 } }] },
          { when: 'c', error: 'context length exceeded' },
        ],
      }),
      source,
    );
    assert.equal(model.context, 16384);
    assert.equal(model.images, true);
  });

  test('reports malformed context, images and cache usage with path and field', () => {
    const problems = valueProblems({
      context: 0,
      images: 'yes',
      rules: [
        { when: 'a', reply: 'x', usage: { input: 1, output: 1, cacheRead: -1, cacheWrite: 'x' } },
        { when: 'b', steps: [{ reply: 'y', usage: { input: 1, output: 1, cacheWrite: 1.5 } }] },
        { when: 'c', reply: 'z', usage: { input: 1, output: 1, cacheHit: 1 } },
      ],
    });
    const expected = [
      'context: must be a positive integer (the context window in tokens)',
      'images: must be true or false',
      'rules[0].usage.cacheRead: must be a non-negative integer',
      'rules[0].usage.cacheWrite: must be a non-negative integer',
      'rules[1].steps[0].usage.cacheWrite: must be a non-negative integer',
      'rules[2].usage.cacheHit: unknown field',
    ].map((line) => `${source}: ${line}`);
    assert.deepEqual([...problems].sort(), [...expected].sort());
    for (const context of [1.5, -3, '16k', null]) {
      assert.deepEqual(valueProblems({ context, default: { reply: 'x' } }), [
        `${source}: context: must be a positive integer (the context window in tokens)`,
      ]);
    }
  });

  test('reports JSON syntax errors with line and column', () => {
    const text = '{\n  "rules": [\n    {"when": x}\n  ]\n}';
    assert.deepEqual(parseProblems(text), [
      'examples/m.json: line 3, column 14: invalid JSON: expected a value, found "x"',
    ]);
    assert.match(parseProblems('{"rules": [],}')[0] ?? '', /line 1, column 14: .*property name/);
    assert.match(parseProblems('{"rules": [')[0] ?? '', /line 1, column 12: .*end of input/);
    assert.match(parseProblems('')[0] ?? '', /line 1, column 1: invalid JSON/);
    assert.match(parseProblems('{"rules": []} x')[0] ?? '', /column 15: .*end of input after/);
    assert.match(parseProblems('{"rules": [], "a": tru}')[0] ?? '', /column 23: .*"true"/);
    assert.match(parseProblems('{"a": "x\\q"}')[0] ?? '', /column 10: .*escape/);
    assert.match(parseProblems('{"a": "x\ny"}')[0] ?? '', /line 1, column 9: .*control/);
  });

  test('reports every problem of a file at once, each with its path', () => {
    const problems = parseProblems(
      JSON.stringify({
        rules: [
          { when: 'a', reply: 'x', error: 'y' },
          {
            when: 'b',
            tools: [{ name: '' }, { name: 'ok', arguments: [] }, 'x', { name: 'ok', id: 1 }],
          },
          { when: '(', reply: 'x' },
          { when: 'd', replay: 'x' },
          { when: 'e', reply: 'x', times: 0, delayMs: -1 },
          { when: 'f', reply: 'x', usage: { input: 1.5, extra: 1 } },
          { when: 'g', hang: false },
          { when: 'h', steps: [] },
          { when: 'i', reply: 'x', status: 500 },
          { when: 'j', error: 'y', status: 42, reasoning: 'why' },
          { when: 'k', steps: [{ when: 'x', reply: 'y' }, { steps: [{ reply: 'x' }] }, 3] },
          { reply: 7, tools: [] },
          { when: 'm', reply: 'x', times: 1.5, delayMs: 1, usage: 'lots' },
        ],
        default: { when: 'x', times: 1, error: '' },
        extra: true,
      }),
    );
    const expected = [
      'rules[0]: exactly one of reply, output, tools, error, hang, steps is required (found reply, error)',
      'rules[1].tools[0].name: must be a non-empty string',
      'rules[1].tools[1].arguments: must be an object',
      'rules[1].tools[2]: must be an object with a name',
      'rules[1].tools[3].id: unknown field',
      'rules[2].when: invalid regular expression: Unterminated group',
      'rules[3].replay: unknown field',
      'rules[3]: exactly one of reply, output, tools, error, hang, steps is required (found none)',
      'rules[4].times: must be a positive integer',
      'rules[4].delayMs: must be a non-negative finite number',
      'rules[5].usage.extra: unknown field',
      'rules[5].usage.input: must be a non-negative integer',
      'rules[5].usage.output: is required',
      'rules[6].hang: must be true',
      'rules[7].steps: must be a non-empty array',
      'rules[8].status: only allowed with error',
      'rules[9].reasoning: only allowed with reply, output or tools',
      'rules[9].status: must be an integer HTTP status (100-599)',
      'rules[10].steps[0].when: not allowed in a step',
      'rules[10].steps[1].steps: not allowed in a step',
      'rules[10].steps[1]: exactly one of reply, output, tools, error, hang is required (found none)',
      'rules[10].steps[2]: must be an object',
      'rules[11].when: is required',
      'rules[11]: exactly one of reply, output, tools, error, hang, steps is required (found reply, tools)',
      'rules[11].reply: must be a string',
      'rules[11].tools: must be a non-empty array',
      'rules[12].times: must be a positive integer',
      'rules[12].usage: must be an object with input and output',
      'default.when: not allowed in default',
      'default.times: not allowed in default',
      'default.error: must be a non-empty string',
      'extra: unknown field',
    ].map((line) => `${source}: ${line}`);
    assert.deepEqual([...problems].sort(), [...expected].sort());
  });

  test('the message heads the list with the file and the count', () => {
    try {
      parseScriptedModel('{"rules": [{"when": "a"}], "x": 1}', source);
      assert.fail('expected a problem');
    } catch (error) {
      assert.ok(error instanceof UserError);
      assert.match(error.message, /^invalid scripted model examples\/m\.json \(2 problems\):\n/);
    }
  });

  test('a file with only a default is valid and has no rules (SPEC §3)', () => {
    const model = parseScriptedModel('{"default": {"reply": "ok: {{prompt}}"}}', source);
    assert.deepEqual(model.rules, []);
    assert.deepEqual(model.default, { reply: 'ok: {{prompt}}' });
    assert.deepEqual(valueProblems({ default: { replay: 'x' } }), [
      `${source}: default.replay: unknown field`,
      `${source}: default: exactly one of reply, output, tools, error, hang, steps is required (found none)`,
    ]);
  });

  test('rejects a root that is not an object, and missing or non-array rules', () => {
    assert.deepEqual(parseProblems('[]'), [
      `${source}: must be a JSON object with a "rules" array, a "default" answer or both`,
    ]);
    assert.deepEqual(parseProblems('{}'), [
      `${source}: rules: is required when there is no default`,
    ]);
    assert.deepEqual(valueProblems({ rules: {} }), [`${source}: rules: must be an array`]);
    assert.deepEqual(valueProblems({ rules: [], default: 'x' }), [
      `${source}: default: must be an object`,
    ]);
  });
});

describe('loadScriptedModel', () => {
  test('a missing file is a UserError naming the path', () => {
    assert.throws(
      () => loadScriptedModel('missing/scripted.json'),
      (error: unknown) =>
        error instanceof UserError &&
        error.code === 'INVALID_SCRIPTED_MODEL' &&
        error.message === 'scripted model file not found: missing/scripted.json',
    );
  });

  test('reads and validates a file, naming it in problems', () => {
    const folder = temporaryFolder('loom-scripted-');
    const good = join(folder, 'good.json');
    writeFileSync(good, '\uFEFF{"rules": [{"when": "x", "reply": "y"}]}');
    assert.equal(loadScriptedModel(good).rules.length, 1);
    const bad = join(folder, 'bad.json');
    writeFileSync(bad, '{"rules": [{"when": "x"}]}');
    assert.throws(() => loadScriptedModel(bad), new RegExp(`${bad}: rules\\[0\\]: exactly one`));
    assert.throws(() => loadScriptedModel(folder), /cannot read scripted model/);
  });

  test('the shipped example is valid', () => {
    const path = fileURLToPath(new URL('../../examples/scripted/review.json', import.meta.url));
    assert.ok(loadScriptedModel(path).rules.some((rule) => 'steps' in rule));
  });

  test('the README documents every field of a rule with the others', () => {
    const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    const start = readme.indexOf('## Testing without tokens: the scripted model');
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    assert.ok(start >= 0 && section.length > 0, 'no scripted model section in the README');
    const prose = section.replace(/```[\s\S]*?```/g, '');
    const missing = scriptedRuleFields.filter((field) => !prose.includes(`\`${field}\``));
    assert.deepEqual(missing, []);
    for (const field of ['"context": N', '"images": true', 'cacheRead', 'cacheWrite']) {
      assert.ok(prose.includes(field), `the README does not describe ${field}`);
    }
    // Every example of a whole file in the section is a valid file.
    const files = [...section.matchAll(/```json\n([\s\S]*?)```/g)]
      .map((match) => JSON.parse(match[1] ?? '') as Record<string, unknown>)
      .filter((value) => 'rules' in value || 'default' in value);
    assert.ok(files.some((file) => 'context' in file));
    for (const file of files) validateScriptedModel(file, 'README.md');
  });
});
