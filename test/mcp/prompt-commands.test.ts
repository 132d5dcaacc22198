/**
 * The pure parts of MCP prompts and resource mentions: arguments mapped to a prompt's declared
 * ones (positional, NAME=VALUE, quotes, the last positional one taking the rest, missing and
 * unknown ones named), a prompt's messages as one user message (resources as text, images
 * described, the assistant's marked), `@server:uri` mentions, URI templates, and the prompt's
 * completion of `@server:` from the resources listed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { promptArguments, promptText } from '../../src/mcp/prompt-commands.js';
import { matchesTemplate, resourceMentions } from '../../src/mcp/resource-mentions.js';
import type { ListedPrompt } from '../../src/mcp/server-catalog.js';
import { completionAt } from '../../src/tui/prompt-completion.js';

const weather: ListedPrompt = {
  name: 'weather',
  arguments: [{ name: 'city', required: true }, { name: 'state' }],
};

test('prompt arguments: positional in order, NAME=VALUE, quotes; the last positional one takes the rest', () => {
  const map = (line: string) => promptArguments('mcp__s__weather', weather, line);
  assert.deepEqual(map('Paris'), { city: 'Paris' });
  assert.deepEqual(map('Paris Texas'), { city: 'Paris', state: 'Texas' });
  assert.deepEqual(map('"New York" state=NY'), { city: 'New York', state: 'NY' });
  assert.deepEqual(map('state=NY Albany'), { state: 'NY', city: 'Albany' });
  assert.deepEqual(map('Paris Ile de France'), { city: 'Paris', state: 'Ile de France' });
  assert.deepEqual(map("city='San Jose'"), { city: 'San Jose' });
});

test('prompt arguments: a missing required one, an unknown name, or words for a prompt without arguments are errors that say what it takes', () => {
  assert.throws(
    () => promptArguments('mcp__s__weather', weather, 'state=NY'),
    /^McpError: \/mcp__s__weather needs city: \/mcp__s__weather city \[state\] \(positional in that order, or NAME=VALUE\)$/,
  );
  assert.throws(
    () => promptArguments('mcp__s__weather', weather, 'town=Paris'),
    /\/mcp__s__weather has no argument town; its arguments are city, state/,
  );
  assert.throws(
    () => promptArguments('mcp__s__hello', { name: 'hello', arguments: [] }, 'extra words'),
    /\/mcp__s__hello takes no arguments, but was given extra words/,
  );
});

test("a prompt's messages as one user message: resources as their text, images described, the assistant's marked", () => {
  const text = promptText(
    {
      messages: [
        { role: 'user', content: { type: 'text', text: 'Look at this:' } },
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: 'demo://a', mimeType: 'text/plain', text: 'A' },
          },
        },
        { role: 'user', content: { type: 'image', mimeType: 'image/png', data: 'AAAA' } },
        { role: 'assistant', content: { type: 'text', text: 'I see.' } },
      ],
    },
    1000,
  );
  assert.equal(
    text,
    'Look at this:\n\n[resource demo://a: text/plain, 1 byte]\nA\n\n[image: image/png, 3 bytes]\n\n(the assistant said:)\nI see.',
  );
  const capped = promptText(
    { messages: [{ role: 'user', content: { type: 'text', text: 'x'.repeat(5000) } }] },
    200,
  );
  assert.ok(capped.length < 400, `capped to ${capped.length} characters`);
});

test('@server:uri mentions and URI templates', () => {
  assert.deepEqual(
    resourceMentions('see @every:demo://a/1, and @notes.md then @docs:file:///x.txt?'),
    [
      { server: 'every', uri: 'demo://a/1' },
      { server: 'docs', uri: 'file:///x.txt' },
    ],
  );
  assert.equal(matchesTemplate('demo://text/{id}', 'demo://text/12'), true);
  assert.equal(matchesTemplate('demo://text/{id}', 'demo://text/12/more'), false);
  assert.equal(matchesTemplate('demo://text/{id}', 'demo://blob/12'), false);
});

test('completion after @server: offers the resources listed, templates marked', () => {
  const resources = () => [
    { mention: 'every:demo://static/a.md', name: 'a.md' },
    { mention: 'every:demo://text/{id}', name: 'Dynamic Text', template: true as const },
    { mention: 'other:x://y', name: 'y' },
  ];
  const text = 'read @every:demo';
  const completion = completionAt(
    { text, cursor: text.length, pastes: [] },
    () => [],
    [],
    resources,
  );
  assert.equal(completion?.kind, 'resource');
  assert.equal(completion?.start, 5);
  assert.deepEqual(
    completion?.choices.map((choice) => [choice.label, choice.replacement, choice.detail]),
    [
      ['@every:demo://static/a.md', '@every:demo://static/a.md ', 'a.md'],
      ['@every:demo://text/{id}', '@every:demo://text/{id}', 'Dynamic Text (template)'],
    ],
  );
  // Without a colon it is a path mention.
  const path = completionAt(
    { text: '@ev', cursor: 3, pastes: [] },
    () => ['every.txt'],
    [],
    resources,
  );
  assert.equal(path?.kind, 'path');
});
