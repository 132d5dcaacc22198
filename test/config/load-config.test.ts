import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig, parseConfig } from '../../src/config/load-config.js';
import { compileRules, matchesRule } from '../../src/config/permissions.js';
import { aliasBombYaml } from '../helpers/alias-bomb.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('a valid config parses with its routes, tools and rules', () => {
  const config = parseConfig(
    [
      'model: work:llama3',
      'models:',
      '  work:',
      '    provider: openai-compatible',
      '    baseURL: http://127.0.0.1:11434/v1',
      '    apiKeyEnv: WORK_KEY',
      'tools:',
      '  bashTimeoutMs: 30000',
      '  extraRoots: [../shared]',
      'permissions:',
      '  - { tool: bash, match: { command: "rm -rf /*" }, action: deny }',
    ].join('\n'),
    'config.yaml',
  );
  assert.equal(config.model, 'work:llama3');
  assert.equal(config.models?.work?.apiKeyEnv, 'WORK_KEY');
  assert.equal(config.tools?.bashTimeoutMs, 30000);
  assert.equal(config.permissions?.[0]?.action, 'deny');
});

test('every problem names the file, the line and the field', () => {
  const text = [
    'model: x',
    'tools:',
    '  bashTimeoutMs: soon',
    '  colour: blue',
    'agent:',
    '  maxSteps: 0',
  ].join('\n');
  assert.throws(
    () => parseConfig(text, '/home/me/.loom/config.yaml'),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, 'INVALID_CONFIG');
      assert.match(error.message, /config\.yaml:3: tools\.bashTimeoutMs: /);
      assert.match(error.message, /config\.yaml:4: tools\.colour: unknown field/);
      assert.match(error.message, /config\.yaml:6: agent\.maxSteps: /);
      return true;
    },
  );
});

test('a key value in place of a variable name is refused', () => {
  assert.throws(
    () =>
      parseConfig('models:\n  x:\n    provider: openai\n    apiKeyEnv: sk-abc123-xyz\n', 'c.yaml'),
    /c\.yaml:4: models\.x\.apiKeyEnv: must be an environment variable name/,
  );
});

test('YAML syntax errors name the file and line', () => {
  assert.throws(() => parseConfig('tools: [\n', 'broken.yaml'), /broken\.yaml:2: Flow sequence/);
});

test("the project's config wins over LOOM_HOME's", () => {
  const home = temporaryFolder();
  const project = temporaryFolder();
  writeFileSync(
    join(home, 'config.yaml'),
    'model: deepseek:deepseek-chat\ntools:\n  bashTimeoutMs: 5000\n',
  );
  mkdirSync(join(project, '.loom'));
  writeFileSync(join(project, '.loom', 'config.yaml'), 'model: openai:gpt-4o\n');
  const config = loadConfig(home, project);
  assert.equal(config.model, 'openai:gpt-4o');
  assert.equal(config.tools?.bashTimeoutMs, 5000);
});

test('permission patterns match whole argument text with * wildcards', () => {
  const [rule] = compileRules([{ tool: 'bash', match: { command: 'rm -rf /*' }, action: 'deny' }]);
  assert.ok(rule);
  assert.equal(matchesRule(rule, 'bash', { command: 'rm -rf /' }), true);
  assert.equal(matchesRule(rule, 'bash', { command: 'rm -rf /home' }), true);
  assert.equal(matchesRule(rule, 'bash', { command: 'rm -rf ./build' }), false);
  assert.equal(matchesRule(rule, 'read_file', { command: 'rm -rf /' }), false);
});

test('a config file that is not UTF-8 text says it must be UTF-8, naming the file', () => {
  const home = temporaryFolder();
  const file = join(home, 'config.yaml');
  const utf16 = Buffer.from('model: openai:gpt-4o\n', 'utf16le');
  const cases: Array<[Buffer, RegExp]> = [
    [
      Buffer.concat([Buffer.from([0xff, 0xfe]), utf16]),
      /is UTF-16 text; config files must be UTF-8/,
    ],
    [Buffer.concat([Buffer.from([0xfe, 0xff]), utf16.swap16()]), /is UTF-16 text/],
    [Buffer.from('model: openai:gpt-4o\n', 'utf16le'), /contains NUL bytes .*must be UTF-8/],
    [Buffer.from([0x6d, 0x3a, 0x20, 0xc3, 0x28, 0x0a]), /is not valid UTF-8/],
  ];
  for (const [bytes, message] of cases) {
    writeFileSync(file, bytes);
    assert.throws(
      () => loadConfig(home, home),
      (error: Error & { code?: string }) => {
        assert.equal(error.code, 'INVALID_CONFIG');
        assert.ok(error.message.includes(`${file}: `), error.message);
        assert.match(error.message, message);
        return true;
      },
    );
  }
  writeFileSync(file, `\uFEFFmodel: openai:gpt-4o\n`);
  assert.equal(loadConfig(home, home).model, 'openai:gpt-4o');
});

test('a config path that is a folder, or aliases that expand too far, name the file', () => {
  const home = temporaryFolder();
  const file = join(home, 'config.yaml');
  mkdirSync(file);
  assert.throws(() => loadConfig(home, home), new RegExp(`${file}: is a directory`));
  assert.throws(
    () => parseConfig(aliasBombYaml(), 'bomb.yaml'),
    /bomb\.yaml: its YAML aliases expand too far .*at most 100 alias expansions/,
  );
  const reused = parseConfig('models:\n  a: &route { provider: openai }\n  b: *route\n', 'ok.yaml');
  assert.equal(reused.models?.b?.provider, 'openai');
});

test('prices map model specs to dollars per million tokens; a bad key or price is named', () => {
  const config = parseConfig(
    'prices:\n  "openai:gpt-4o": { input: 2.5, output: 10 }\n',
    'config.yaml',
  );
  assert.deepEqual(config.prices, { 'openai:gpt-4o': { input: 2.5, output: 10 } });
  assert.throws(
    () => parseConfig('prices:\n  gpt-4o: { input: 1, output: 2 }\n', 'config.yaml'),
    /config\.yaml:2.*prices\.gpt-4o.*provider:model/s,
  );
  assert.throws(
    () => parseConfig('prices:\n  "openai:gpt-4o": { input: -1, output: 2 }\n', 'config.yaml'),
    /prices\.openai:gpt-4o\.input/,
  );
  assert.throws(
    () => parseConfig('prices:\n  "openai:gpt-4o": { input: 1 }\n', 'config.yaml'),
    /prices\.openai:gpt-4o\.output/,
  );
});

test('models: by spec or scripted states a model; a route may state its window; mistakes are named', () => {
  const config = parseConfig(
    [
      'models:',
      '  "openai:gpt-4o-mini": { context: 100000, output: 8000, images: true }',
      '  scripted: { context: 16000 }',
      '  "deepseek:deepseek-chat":',
      '    prices: { input: 0.27, output: 1.1, cacheRead: 0.07 }',
      '  local: { provider: openai-compatible, baseURL: "http://127.0.0.1:9/v1", context: 8192 }',
      'context: { compactAt: 0.9, warnAt: 0.5, keepSteps: 0 }',
    ].join('\n'),
    'config.yaml',
  );
  assert.equal(config.models?.['openai:gpt-4o-mini']?.context, 100000);
  assert.equal(config.models?.scripted?.context, 16000);
  assert.equal(config.models?.['deepseek:deepseek-chat']?.prices?.cacheRead, 0.07);
  assert.equal(config.models?.local?.context, 8192);
  assert.deepEqual(config.context, { compactAt: 0.9, warnAt: 0.5, keepSteps: 0 });
  const problems: Array<[string, RegExp]> = [
    [
      'models:\n  "openai:gpt-4o": { provider: openai }\n',
      /models\.openai:gpt-4o\.provider: "openai:gpt-4o" is a model spec.*provider belongs to a route/,
    ],
    [
      'models:\n  work: { context: 1000 }\n',
      /models\.work\.provider: route "work" needs a provider/,
    ],
    [
      'models:\n  Big_Model: { context: 1000 }\n',
      /models\.Big_Model: "Big_Model" is neither a route/,
    ],
    ['models:\n  "openai:x": { context: 0 }\n', /models\.openai:x\.context/],
    [
      'models:\n  "openai:x": { context: 100, output: 200 }\n',
      /models\.openai:x\.output: output \(200\) is larger than context \(100\)/,
    ],
    ['models:\n  "openai:x": { window: 100 }\n', /models\.openai:x\.window: unknown field/],
    ['context: { compactAt: 0 }\n', /context\.compactAt: must be a share of the window/],
    ['context: { warnAt: 1.5 }\n', /context\.warnAt: must be a share of the window/],
    [
      'context: { warnAt: 0.9 }\n',
      /context\.warnAt: warnAt \(0\.9\) must not be above compactAt \(0\.8\)/,
    ],
    ['context: { keepSteps: 1.5 }\n', /context\.keepSteps: must be a whole number of steps/],
    [
      'context: { keepSteps: -1 }\n',
      /context\.keepSteps: must be a whole number of steps, 0 or more/,
    ],
  ];
  for (const [text, pattern] of problems) {
    assert.throws(() => parseConfig(text, 'config.yaml'), pattern, text);
  }
});
