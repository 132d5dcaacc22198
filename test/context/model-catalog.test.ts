/**
 * The model catalog (SPEC §9): a lookup for each spec form (provider:model, an
 * openai-compatible model at a URL, a config route, scripted), config's `models:` and legacy
 * `prices:` over the catalog, a client's own limits over config, and an unknown model as the
 * stated default. A small fixture stands for the data, so figures here never change with the
 * package; one test reads the real data.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CatalogData, trimCatalog } from '../../src/context/catalog-data.js';
import { contextSettings } from '../../src/context/context-settings.js';
import {
  createModelCatalog,
  DEFAULT_MODEL_LIMITS,
  unknownModelNote,
} from '../../src/context/model-catalog.js';
import { modelRoutes } from '../../src/context/model-routes.js';

const fixture: CatalogData = {
  openai: {
    models: {
      'gpt-4o-mini': {
        context: 128_000,
        output: 16_384,
        prices: { input: 0.15, output: 0.6, cacheRead: 0.075 },
        images: true,
        tools: true,
        reasoning: false,
      },
    },
  },
  anthropic: {
    models: {
      'claude-3-5-haiku-20241022': {
        context: 200_000,
        output: 8_192,
        prices: { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
        images: true,
        tools: true,
        reasoning: false,
      },
    },
  },
  deepseek: {
    models: {
      'deepseek-chat': {
        context: 64_000,
        output: 8_192,
        prices: { input: 0.27, output: 1.1 },
        images: false,
        tools: true,
        reasoning: false,
      },
    },
  },
  groqlike: {
    api: 'https://groq.example/v1',
    models: {
      'llama-3.1-8b': {
        context: 131_072,
        output: 8_192,
        images: false,
        tools: true,
        reasoning: false,
      },
    },
  },
};

const catalogOf = (options: Parameters<typeof createModelCatalog>[0] = {}) =>
  createModelCatalog({ load: () => fixture, ...options });

test('provider:model specs find their provider’s entry, with prices and capabilities', () => {
  const catalog = catalogOf();
  assert.deepEqual(catalog.lookup('openai:gpt-4o-mini'), {
    spec: 'openai:gpt-4o-mini',
    context: 128_000,
    output: 16_384,
    prices: { input: 0.15, output: 0.6, cacheRead: 0.075 },
    images: true,
    tools: true,
    reasoning: false,
    source: 'catalog',
  });
  assert.equal(catalog.lookup('deepseek:deepseek-chat').context, 64_000);
  const haiku = catalog.lookup('anthropic:claude-3-5-haiku-20241022');
  assert.equal(haiku.prices?.cacheWrite, 1);
  // An alias without the date, and `-latest`, find the newest dated version.
  assert.equal(catalog.lookup('anthropic:claude-3-5-haiku').context, 200_000);
  assert.equal(catalog.lookup('anthropic:claude-3-5-haiku-latest').source, 'catalog');
});

test('openai-compatible:MODEL@URL looks MODEL up across providers, the URL’s own first', () => {
  const catalog = catalogOf();
  const local = catalog.lookup('openai-compatible:gpt-4o-mini@http://localhost:11434/v1');
  assert.equal(local.context, 128_000);
  assert.equal(local.source, 'catalog');
  assert.equal(
    catalog.lookup('openai-compatible:llama-3.1-8b@https://groq.example/v1/').context,
    131_072,
  );
});

test('a config route finds its model, and may state its window', () => {
  const models = {
    work: { provider: 'openai-compatible' as const, baseURL: 'http://127.0.0.1:9/v1' },
    small: {
      provider: 'openai-compatible' as const,
      baseURL: 'http://127.0.0.1:9/v1',
      model: 'tiny',
      context: 8_192,
    },
  };
  const catalog = catalogOf({ models });
  assert.equal(catalog.lookup('work:gpt-4o-mini').context, 128_000);
  const small = catalog.lookup('small');
  assert.equal(small.context, 8_192);
  assert.equal(small.source, 'config');
  assert.deepEqual(modelRoutes(models).small, {
    provider: 'openai-compatible',
    baseURL: 'http://127.0.0.1:9/v1',
    model: 'tiny',
  });
});

test('config models: override the catalog or add a model; legacy prices fill prices', () => {
  const catalog = catalogOf({
    models: {
      'openai:gpt-4o-mini': { context: 100_000 },
      'openai:brand-new': { context: 1_000_000, output: 50_000, images: true },
      'deepseek:deepseek-chat': { prices: { input: 1, output: 2, cacheRead: 0.5 } },
    },
    prices: {
      'openai:gpt-4o-mini': { input: 9, output: 9 },
      'deepseek:deepseek-chat': { input: 7, output: 7 },
    },
  });
  const mini = catalog.lookup('openai:gpt-4o-mini');
  assert.equal(mini.context, 100_000);
  assert.equal(mini.output, 16_384);
  assert.equal(mini.source, 'config');
  assert.deepEqual(mini.prices, { input: 9, output: 9 });
  const added = catalog.lookup('openai:brand-new');
  assert.deepEqual(
    { context: added.context, output: added.output, images: added.images, source: added.source },
    { context: 1_000_000, output: 50_000, images: true, source: 'config' },
  );
  // `models.SPEC.prices` is over `prices:`.
  assert.deepEqual(catalog.lookup('deepseek:deepseek-chat').prices, {
    input: 1,
    output: 2,
    cacheRead: 0.5,
  });
  assert.ok(catalog.list('brand').some((info) => info.spec === 'openai:brand-new'));
});

test('scripted: config `scripted` applies to every file, the client’s own limits over it', () => {
  const catalog = catalogOf({ models: { scripted: { context: 20_000, images: true } } });
  const plain = catalog.lookup('scripted:/tmp/a.json');
  assert.equal(plain.context, 20_000);
  assert.equal(plain.images, true);
  assert.equal(plain.source, 'config');
  const declared = catalog.lookup('scripted:/tmp/b.json', { context: 16_000 });
  assert.equal(declared.context, 16_000);
  assert.equal(declared.source, 'client');
  assert.equal(catalogOf().lookup('scripted:/tmp/c.json').source, 'default');
});

test('an unknown model is the stated default window, never a guess, and never throws', () => {
  const catalog = catalogOf();
  for (const spec of ['openai:gpt-9', 'nonsense', '', 'openai-compatible:x@http://h/v1']) {
    const info = catalog.lookup(spec);
    assert.equal(info.source, 'default', spec);
    assert.equal(info.context, DEFAULT_MODEL_LIMITS.context);
    assert.equal(info.output, DEFAULT_MODEL_LIMITS.output);
    assert.equal(info.prices, undefined);
  }
  assert.equal(DEFAULT_MODEL_LIMITS.context, 32_000);
  assert.match(unknownModelNote('openai:gpt-9'), /models\."openai:gpt-9"\.context/);
});

test('the data loads at the first lookup, once, never when the catalog is made', () => {
  let loads = 0;
  const catalog = createModelCatalog({
    load: () => {
      loads += 1;
      return fixture;
    },
  });
  assert.equal(loads, 0);
  catalog.lookup('openai:gpt-4o-mini');
  catalog.list();
  assert.equal(loads, 1);
});

test('list: the native providers’ specs, openai-compatible ones at their URL, a filter in any case', () => {
  const specs = catalogOf()
    .list()
    .map((info) => info.spec);
  assert.deepEqual(specs, [
    'anthropic:claude-3-5-haiku-20241022',
    'deepseek:deepseek-chat',
    'openai-compatible:llama-3.1-8b@https://groq.example/v1',
    'openai:gpt-4o-mini',
  ]);
  assert.deepEqual(
    catalogOf()
      .list('GPT-4O')
      .map((info) => info.spec),
    ['openai:gpt-4o-mini'],
  );
});

test('the trimmed data keeps what Loom uses of models.dev entries and drops the rest', () => {
  const trimmed = trimCatalog({
    acme: {
      id: 'acme',
      api: 'https://acme.example/v1',
      models: {
        big: {
          id: 'big',
          tool_call: true,
          reasoning: true,
          modalities: { input: ['text', 'image'], output: ['text'] },
          cost: { input: 1, output: 2, cache_read: 0.1, cache_write: 1.25 },
          limit: { context: 200_000, output: 0 },
          knowledge: '2025-01',
        },
        broken: { id: 'broken', limit: {} },
      },
    },
  });
  assert.deepEqual(trimmed, {
    acme: {
      api: 'https://acme.example/v1',
      models: {
        big: {
          context: 200_000,
          output: 4_096,
          prices: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 },
          images: true,
          tools: true,
          reasoning: true,
        },
      },
    },
  });
});

test('the real data knows the default models', () => {
  const catalog = createModelCatalog();
  for (const spec of [
    'deepseek:deepseek-chat',
    'openai:gpt-4o-mini',
    'anthropic:claude-3-5-haiku',
  ]) {
    const info = catalog.lookup(spec);
    assert.equal(info.source, 'catalog', spec);
    assert.ok(info.context >= 32_000 && info.output > 0, spec);
    assert.ok(info.prices && info.prices.input > 0, spec);
  }
});

test('context settings: config over the defaults', () => {
  assert.deepEqual(contextSettings(undefined), { compactAt: 0.8, warnAt: 0.7, keepSteps: 3 });
  assert.deepEqual(contextSettings({ warnAt: 0.5, keepSteps: 0 }), {
    compactAt: 0.8,
    warnAt: 0.5,
    keepSteps: 0,
  });
});
