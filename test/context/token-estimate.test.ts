import assert from 'node:assert/strict';
import { test } from 'node:test';
import { charactersOfRequest } from '../../src/context/token-estimate.js';
import type { ModelToolSpec } from '../../src/llm/contract.js';

const spec = (name: string): ModelToolSpec => ({
  name,
  description: `the ${name} tool, "quoted" and ünïcode`,
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
});

test('a request counts its tool schemas as their JSON text, whichever lists share the specs', () => {
  const read = spec('read_file');
  const write = spec('write_file');
  const messages = [{ role: 'user' as const, content: 'hello' }];
  for (const tools of [[], [read], [read, write], [write, read, read]]) {
    assert.equal(
      charactersOfRequest('system', tools, messages),
      'system'.length + (tools.length > 0 ? JSON.stringify(tools).length : 0) + 'hello'.length,
    );
    // Asked again (a list seen before): the same figure.
    assert.equal(
      charactersOfRequest('', tools, []),
      tools.length > 0 ? JSON.stringify(tools).length : 0,
    );
  }
});
