/**
 * Which prompt argument the word at the cursor is (mcp/argument-completion.ts): the next
 * positional one, or `NAME=` typed; the arguments before it as the request's context; nothing
 * past the last argument, inside quotes, or for a command that is not a server prompt.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { argumentAt } from '../../src/mcp/argument-completion.js';
import type { McpPromptCommand } from '../../src/mcp/prompt-commands.js';

const command: McpPromptCommand = {
  name: 'mcp__s__weather',
  server: 's',
  prompt: { name: 'weather', arguments: [{ name: 'city', required: true }, { name: 'state' }] },
  usage: 'city [state]',
};

const at = (before: string) => {
  const asked = argumentAt([command], before);
  return asked && [asked.argument, asked.value, asked.given, asked.prefix, asked.start];
};

test('the word at the cursor is the next positional argument, or the one NAME= names', () => {
  assert.deepEqual(at('/mcp__s__weather '), ['city', '', {}, '', 17]);
  assert.deepEqual(at('/mcp__s__weather Pa'), ['city', 'Pa', {}, '', 17]);
  assert.deepEqual(at('/mcp__s__weather Paris Te'), ['state', 'Te', { city: 'Paris' }, '', 23]);
  assert.deepEqual(at('/mcp__s__weather state=T'), ['state', 'T', {}, 'state=', 17]);
  assert.deepEqual(at('/mcp__s__weather state=TX Al'), ['city', 'Al', { state: 'TX' }, '', 26]);
  assert.deepEqual(at('/mcp__s__weather "New York" N'), [
    'state',
    'N',
    { city: 'New York' },
    '',
    28,
  ]);
});

test('nothing to complete past the last argument, inside quotes, or for another command', () => {
  assert.equal(at('/mcp__s__weather Paris Texas more'), undefined);
  assert.equal(at('/mcp__s__weather "New Yo'), undefined);
  assert.equal(at('/mcp__s__other Pa'), undefined);
  assert.equal(at('/mcp__s__weather'), undefined);
  assert.equal(at('/help me'), undefined);
});
