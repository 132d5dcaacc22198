/**
 * `loom models [--json] [FILTER]` through the built bin/loom (SPEC §9): the table of what Loom
 * knows, the JSON array of ModelInfo, config's `models:` over the catalog, and a model the
 * catalog does not know said so with the config key to set.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ModelInfo } from '../../src/context/contract.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom } from './loom-process.js';

test('loom models: a table of spec, window, output, prices and capabilities', async () => {
  const home = temporaryFolder();
  const result = await runLoom(['models', '--cwd', home], { home, cwd: home });
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.split('\n');
  assert.match(
    lines[0] ?? '',
    /^SPEC +CONTEXT +OUTPUT +INPUT \$\/M +OUTPUT \$\/M +CACHE READ \$\/M +CACHE WRITE \$\/M +CAPABILITIES +SOURCE$/,
  );
  const chat = lines.find((line) => line.startsWith('deepseek:deepseek-chat '));
  assert.match(chat ?? '', /^deepseek:deepseek-chat +\d+ +\d+ +[\d.]+ +[\d.]+ .*tools.* catalog$/);
  assert.ok(lines.some((line) => line.startsWith('anthropic:')));
  assert.ok(lines.some((line) => line.startsWith('openai-compatible:')));
});

test('loom models --json gpt-4o: an array of ModelInfo, filtered in any case, with config over it', async () => {
  const home = temporaryFolder();
  writeFileSync(
    join(home, 'config.yaml'),
    [
      'models:',
      '  "openai:gpt-4o-mini": { context: 99000, prices: { input: 1, output: 2, cacheRead: 0.5 } }',
      '  "openai:gpt-4o-private": { context: 50000, output: 1000 }',
    ].join('\n'),
  );
  const result = await runLoom(['models', '--json', 'GPT-4O', '--cwd', home], { home, cwd: home });
  assert.equal(result.code, 0, result.stderr);
  const models = JSON.parse(result.stdout) as ModelInfo[];
  assert.ok(models.length > 2);
  assert.ok(models.every((info) => info.spec.toLowerCase().includes('gpt-4o')));
  const byspec = new Map(models.map((info) => [info.spec, info]));
  assert.equal(byspec.get('openai:gpt-4o')?.source, 'catalog');
  assert.ok((byspec.get('openai:gpt-4o')?.context ?? 0) >= 100_000);
  assert.deepEqual(byspec.get('openai:gpt-4o-mini'), {
    ...byspec.get('openai:gpt-4o-mini'),
    context: 99000,
    prices: { input: 1, output: 2, cacheRead: 0.5 },
    source: 'config',
  });
  assert.deepEqual(byspec.get('openai:gpt-4o-private'), {
    spec: 'openai:gpt-4o-private',
    context: 50000,
    output: 1000,
    images: false,
    tools: true,
    reasoning: false,
    source: 'config',
  });
});

test('loom models X: a model the catalog does not know is said so, with the config key to set', async () => {
  const home = temporaryFolder();
  const unknown = await runLoom(['models', 'openai:gpt-99', '--cwd', home], { home, cwd: home });
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stdout, '');
  assert.match(unknown.stderr, /does not know openai:gpt-99; assuming a 32,000-token window/);
  assert.match(unknown.stderr, /models\."openai:gpt-99"\.context/);
  // A spec the list does not hold but the catalog resolves is shown on its own.
  const resolved = await runLoom(
    ['models', '--json', 'openai-compatible:gpt-4o-mini@http://127.0.0.1:9/v1', '--cwd', home],
    { home, cwd: home },
  );
  assert.equal(resolved.code, 0, resolved.stderr);
  const [info] = JSON.parse(resolved.stdout) as ModelInfo[];
  assert.equal(info?.source, 'catalog');
});

test('loom models: a config mistake in models: names the key', async () => {
  const home = temporaryFolder();
  writeFileSync(join(home, 'config.yaml'), 'models:\n  "openai:gpt-4o": { context: -5 }\n');
  const result = await runLoom(['models', '--cwd', home], { home, cwd: home });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /config\.yaml:2: models\.openai:gpt-4o\.context/);
});
