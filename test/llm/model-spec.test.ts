/**
 * Model specs: what `parseModelSpec` accepts, the UserError each malformed spec or route gets,
 * `defaultModelSpec`, and that `createModelClient` hands `scripted:PATH` to the scripted model.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { UserError } from '../../src/base/errors.js';
import type { ModelRoute } from '../../src/llm/model-spec.js';
import { createModelClient, defaultModelSpec, parseModelSpec } from '../../src/llm/providers.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { collectParts, joinedText, makeRequest } from './stream-helpers.js';

function rejects(spec: string, code: string, pattern: RegExp, routes?: Record<string, ModelRoute>) {
  assert.throws(
    () => parseModelSpec(spec, routes),
    (error: unknown) => {
      assert.ok(error instanceof UserError, `expected a UserError for ${JSON.stringify(spec)}`);
      assert.equal(error.code, code);
      assert.match(error.message, pattern);
      return true;
    },
  );
}

describe('parseModelSpec', () => {
  test('built-in providers', () => {
    assert.deepEqual(parseModelSpec('deepseek:deepseek-chat'), {
      provider: 'deepseek',
      model: 'deepseek-chat',
    });
    assert.deepEqual(parseModelSpec(' openai:gpt-4.1 '), { provider: 'openai', model: 'gpt-4.1' });
    assert.deepEqual(parseModelSpec('anthropic:claude-sonnet-4-5'), {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
    assert.deepEqual(parseModelSpec('openai-compatible:qwen2.5:7b@http://localhost:11434/v1'), {
      provider: 'openai-compatible',
      model: 'qwen2.5:7b',
      baseURL: 'http://localhost:11434/v1',
    });
    assert.deepEqual(parseModelSpec('scripted:examples/demo/model.json'), {
      provider: 'scripted',
      model: 'examples/demo/model.json',
    });
  });

  test('routes: bare name uses the route model, name:MODEL overrides it', () => {
    const routes: Record<string, ModelRoute> = {
      fast: { provider: 'deepseek', model: 'deepseek-chat', apiKeyEnv: 'TEAM_KEY' },
      local: { provider: 'openai-compatible', baseURL: 'http://127.0.0.1:8080/v1' },
    };
    assert.deepEqual(parseModelSpec('fast', routes), {
      provider: 'deepseek',
      model: 'deepseek-chat',
      apiKeyEnv: 'TEAM_KEY',
      route: 'fast',
    });
    assert.deepEqual(parseModelSpec('local:llama3:8b', routes), {
      provider: 'openai-compatible',
      model: 'llama3:8b',
      baseURL: 'http://127.0.0.1:8080/v1',
      route: 'local',
    });
  });

  test('malformed specs get a UserError that says what is wrong', () => {
    rejects('', 'MODEL_SPEC', /empty.*PROVIDER:MODEL/);
    rejects('gpt-4o', 'MODEL_SPEC', /"gpt-4o" names no provider; expected PROVIDER:MODEL/);
    rejects('deepseek:', 'MODEL_SPEC', /names no model; expected deepseek:MODEL/);
    rejects('scripted:', 'MODEL_SPEC', /names no path; expected scripted:PATH/);
    rejects(
      'openai-compatible:llama3',
      'MODEL_SPEC',
      /needs a model and a base URL: openai-compatible:MODEL@BASE_URL/,
    );
    rejects('openai-compatible:@http://x', 'MODEL_SPEC', /MODEL@BASE_URL/);
    rejects(
      'openai-compatible:llama3@localhost:11434',
      'MODEL_SPEC',
      /must be an http:\/\/ or https:\/\/ URL/,
    );
    rejects(
      'openai-compatible:llama3@ftp://host/v1',
      'MODEL_SPEC',
      /"ftp:\/\/host\/v1" must be an http/,
    );
    rejects(
      'openai-compatible:m@http://user:hunter2@host/v1',
      'MODEL_SPEC',
      /"openai-compatible:m@http:\/\/\[redacted\]@host\/v1": the base URL must not embed credentials/,
    );
  });

  test('an unknown provider lists the known providers and the configured routes', () => {
    rejects(
      'mistral:large',
      'MODEL_SPEC',
      /unknown provider "mistral"\. Known providers: deepseek, openai, anthropic, openai-compatible, scripted; routes: none configured/,
    );
    rejects('fats', 'MODEL_SPEC', /routes: fast, local$/, {
      fast: { provider: 'deepseek', model: 'deepseek-chat' },
      local: { provider: 'openai-compatible', baseURL: 'http://127.0.0.1:8080/v1' },
    });
  });

  test('a broken route is an INVALID_CONFIG error naming the route and field', () => {
    rejects('r', 'MODEL_SPEC', /route "r", which has no default model; use r:MODEL/, {
      r: { provider: 'deepseek' },
    });
    rejects('r:m', 'INVALID_CONFIG', /route "r": field "provider" must be one of/, {
      r: { provider: 'mistral' } as never,
    });
    rejects(
      'r:m',
      'INVALID_CONFIG',
      /route "r": provider openai-compatible needs field "baseURL"/,
      {
        r: { provider: 'openai-compatible' },
      },
    );
    rejects('r:m', 'INVALID_CONFIG', /route "r" has an unknown field "apiKey"/, {
      r: { provider: 'openai', apiKey: 'sk-value' } as never,
    });
    rejects('openai:gpt-4.1', 'INVALID_CONFIG', /route "openai" shadows the built-in provider/, {
      openai: { provider: 'openai' },
    });
  });
});

describe('defaultModelSpec', () => {
  test('is deepseek-chat only when DEEPSEEK_API_KEY is set', () => {
    assert.equal(defaultModelSpec({ DEEPSEEK_API_KEY: 'x' }), 'deepseek:deepseek-chat');
    assert.equal(defaultModelSpec({ DEEPSEEK_API_KEY: '' }), undefined);
    assert.equal(defaultModelSpec({ OPENAI_API_KEY: 'x' }), undefined);
  });
});

describe('createModelClient', () => {
  test('scripted:PATH is answered by the scripted model', async () => {
    const folder = temporaryFolder('loom-model-spec-');
    const path = join(folder, 'model.json');
    writeFileSync(path, JSON.stringify({ rules: [], default: { reply: 'scripted ok' } }));
    const client = createModelClient(`scripted:${path}`);
    const parts = await collectParts(client.stream(makeRequest()));
    assert.equal(joinedText(parts), 'scripted ok');
    assert.equal(parts.at(-1)?.type, 'finish');
  });

  test('a malformed spec throws at creation; a bad retry policy too', () => {
    assert.throws(() => createModelClient('nope'), UserError);
    assert.throws(
      () => createModelClient('deepseek:deepseek-chat', { retry: { maxAttempts: 0 } }),
      /maxAttempts/,
    );
  });
});
