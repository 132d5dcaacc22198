/**
 * Which prompt argument the word at the cursor is (mcp/argument-completion.ts): the next
 * positional one, or `NAME=` typed; the arguments before it as the request's context; nothing
 * past the last argument, inside quotes, or for a command that is not a server prompt. And which
 * variable of a resource template an `@server:` mention is being typed in.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { argumentAt, templateVariableAt } from '../../src/mcp/argument-completion.js';
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

test('the template variable a mention is typed in, with the variables before it', () => {
  const choices = [
    { mention: 's:file:///a.txt', name: 'a' },
    { mention: 's:repo://{owner}/{name}/issues', name: 'issues', template: true as const },
    { mention: 's:expand://{+path}', name: 'reserved', template: true as const },
  ];
  const at = (query: string) => {
    const asked = templateVariableAt(choices, query);
    return (
      asked && [
        asked.uriTemplate,
        asked.variable,
        asked.value,
        asked.given,
        asked.prefix,
        asked.rest,
      ]
    );
  };
  assert.deepEqual(at('s:repo://oc'), [
    'repo://{owner}/{name}/issues',
    'owner',
    'oc',
    {},
    's:repo://',
    '/{name}/issues',
  ]);
  assert.deepEqual(at('s:repo://octo/lo'), [
    'repo://{owner}/{name}/issues',
    'name',
    'lo',
    { owner: 'octo' },
    's:repo://octo/',
    '/issues',
  ]);
  assert.equal(at('s:repo://octo/loom/iss'), undefined, 'a literal is being typed');
  assert.equal(at('s:rep'), undefined);
  assert.equal(at('t:repo://oc'), undefined, 'another server');
  assert.equal(at('s:expand://x'), undefined, 'only simple {name} variables');
});
