/**
 * Small helpers for model-client tests: a default request, draining a stream into an array and
 * reading the text of collected parts. Test-only; never imported by src/.
 */
import type { ModelRequest, ModelStreamPart } from '../../src/llm/contract.js';
import type { CreateModelClientOptions } from '../../src/llm/providers.js';

export const fakeKey = 'sk-test-2f9c41d07a5b4e38b6a1c9d2e0f7a3b5';

/** Client options under which `local-deepseek:MODEL` reaches `baseURL` with the fake key. */
export function localDeepseekOptions(
  baseURL: string,
  extra: Partial<CreateModelClientOptions> = {},
): CreateModelClientOptions {
  return {
    routes: { 'local-deepseek': { provider: 'deepseek', baseURL } },
    env: { DEEPSEEK_API_KEY: fakeKey },
    ...extra,
  };
}

export function makeRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: 'You are a careful coding agent.',
    messages: [{ role: 'user', content: 'How many lines does README.md have?' }],
    tools: [
      {
        name: 'read_file',
        description: 'Read a text file from the workspace.',
        parameters: {
          type: 'object',
          properties: { path: { type: 'string' }, limit: { type: 'integer' } },
          required: ['path'],
          additionalProperties: false,
        },
      },
    ],
    signal: new AbortController().signal,
    ...overrides,
  };
}

export async function collectParts(
  stream: AsyncIterable<ModelStreamPart>,
): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

export function joinedText(parts: ModelStreamPart[], type: 'text' | 'reasoning' = 'text'): string {
  return parts.map((part) => (part.type === type ? part.text : '')).join('');
}

export function lastPart(parts: ModelStreamPart[]): ModelStreamPart | undefined {
  return parts.at(-1);
}

/** A sleep that returns at once and records each requested wait. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms: number) => {
      waits.push(ms);
    },
  };
}
