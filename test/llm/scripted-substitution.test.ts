import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { UserError } from '../../src/base/errors.js';
import type {
  ModelClient,
  ModelMessage,
  ModelStreamPart,
  ModelToolSpec,
} from '../../src/llm/contract.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile, ScriptedRule } from '../../src/llm/scripted-rules.js';
import { goalChanges, startGoalAgent } from '../goal/goal-fixture.js';
import {
  assistant,
  collect,
  request,
  structuredOutput,
  textOf,
  toolResult,
  user,
} from '../helpers/model-requests.js';

async function ask(
  client: ModelClient,
  messages: ModelMessage[],
  tools: ModelToolSpec[] = [],
): Promise<ModelStreamPart[]> {
  return collect(client, request(messages, { tools }));
}

/** Asks the second request of a turn whose first step's tool returned `result`. */
const afterTool = (client: ModelClient, result: string, tools: ModelToolSpec[] = []) =>
  ask(client, [user('go on'), assistant(), toolResult(result, 'create_goal')], tools);

const callArguments = (parts: ModelStreamPart[]) =>
  parts.flatMap((part) => (part.type === 'tool-call' ? [part.call.arguments] : []));

function errorMessageOf(parts: ModelStreamPart[]): string {
  const final = parts.at(-1);
  assert.equal(final?.type, 'error', 'the request fails as an error part');
  assert.equal(parts.length, 1, 'nothing is streamed before the error');
  return final?.type === 'error' ? final.error.message : '';
}

/** A rule `go (\w+)` whose second step calls `update` with `arguments`. */
const secondStepCalls = (argumentsObject: Record<string, unknown>): ScriptedModelFile => ({
  rules: [
    {
      when: 'go (\\w+)',
      steps: [
        { tools: [{ name: 'create_goal', arguments: {} }] },
        { tools: [{ name: 'update', arguments: argumentsObject }] },
      ],
    },
  ],
});

describe('scripted model: {{lastToolResult.PATH}}', () => {
  test('a whole-string path keeps a number a number', async () => {
    const client = createScriptedModel(
      secondStepCalls({ revision: '{{lastToolResult.revision}}', note: 'for {{1}}' }),
    );
    const parts = await afterTool(client, JSON.stringify({ goal_id: 'g-7', revision: 3 }));
    assert.deepEqual(callArguments(parts), [{ revision: 3, note: 'for on' }]);
  });

  test('a nested path reads inside objects and keeps an object an object', async () => {
    const client = createScriptedModel(
      secondStepCalls({
        owner: '{{lastToolResult.goal.owner.name}}',
        whole: '{{lastToolResult.goal.owner}}',
        done: '{{lastToolResult.goal.done}}',
        missing: '{{lastToolResult.goal.note}}',
      }),
    );
    const result = { goal: { owner: { name: 'ada', id: 4 }, done: false, note: null } };
    const parts = await afterTool(client, JSON.stringify(result));
    assert.deepEqual(callArguments(parts), [
      { owner: 'ada', whole: { name: 'ada', id: 4 }, done: false, missing: null },
    ]);
  });

  test('numeric segments index arrays, also inside nested arguments', async () => {
    const client = createScriptedModel(
      secondStepCalls({
        ids: ['{{lastToolResult.items.1.id}}', '{{lastToolResult.items.0.id}}'],
        first: { item: '{{lastToolResult.items.0}}' },
      }),
    );
    const parts = await afterTool(client, JSON.stringify({ items: [{ id: 10 }, { id: 11 }] }));
    assert.deepEqual(callArguments(parts), [{ ids: [11, 10], first: { item: { id: 10 } } }]);
  });

  test('inside a longer string the value is rendered as text, JSON when not a string', async () => {
    const client = createScriptedModel({
      rules: [
        {
          when: 'go',
          steps: [
            { tools: [{ name: 'create_goal', arguments: {} }] },
            {
              reply:
                'made {{lastToolResult.goal_id}} at revision {{lastToolResult.revision}} with {{lastToolResult.tags}}',
            },
          ],
        },
      ],
    });
    const result = { goal_id: 'g-7', revision: 3, tags: ['a', 'b'] };
    const parts = await afterTool(client, JSON.stringify(result));
    assert.equal(textOf(parts), 'made g-7 at revision 3 with ["a","b"]');
  });

  test('substitution applies inside output, given as structured output or as JSON text', async () => {
    const file: ScriptedModelFile = {
      rules: [
        {
          when: 'report on (\\w+)',
          steps: [
            { tools: [{ name: 'create_goal', arguments: {} }] },
            {
              output: {
                subject: '{{1}}',
                id: '{{lastToolResult.goal_id}}',
                revisions: ['{{lastToolResult.revision}}'],
                summary: 'goal {{lastToolResult.goal_id}} for "{{prompt}}"',
              },
            },
          ],
        },
      ],
    };
    const messages = [
      user('report on parser'),
      assistant(),
      toolResult('{"goal_id":"g-1","revision":2}'),
    ];
    const expected = {
      subject: 'parser',
      id: 'g-1',
      revisions: [2],
      summary: 'goal g-1 for "report on parser"',
    };
    const structured = await ask(createScriptedModel(file), messages, [structuredOutput]);
    assert.deepEqual(callArguments(structured), [expected]);
    const asText = await ask(createScriptedModel(file), messages);
    assert.deepEqual(JSON.parse(textOf(asText)), expected);
  });

  test('an output that is exactly one placeholder becomes the value itself', async () => {
    const client = createScriptedModel({
      rules: [
        {
          when: 'go',
          steps: [{ tools: [{ name: 'list' }] }, { output: '{{lastToolResult.items}}' }],
        },
      ],
    });
    const parts = await afterTool(client, '{"items":[1,2]}', [structuredOutput]);
    assert.deepEqual(callArguments(parts), [[1, 2]]);
  });

  test('a missing path fails the request naming the rule, the step, the field and the path', async () => {
    const client = createScriptedModel(
      secondStepCalls({ id: '{{lastToolResult.goal_id}}', list: ['{{lastToolResult.items.2}}'] }),
    );
    const noKey = errorMessageOf(await afterTool(client, '{"goalId":"g-1","items":[1,2]}'));
    assert.match(noKey, /^scripted model inline: rules\[0\] \(when "go \(\\\\w\+\)"\) step 1, /);
    assert.match(
      noKey,
      /tools\[0\]\.arguments\.id: cannot fill in \{\{lastToolResult\.goal_id\}\}/,
    );
    assert.match(noKey, /the last tool result has no key "goal_id"$/);
    const outOfRange = errorMessageOf(await afterTool(client, '{"goal_id":"g-1","items":[1,2]}'));
    assert.match(
      outOfRange,
      /tools\[0\]\.arguments\.list\[0\]: .*\{\{lastToolResult\.items\.2\}\}/,
    );
    assert.match(outOfRange, /"items" has 2 entries, so no index 2$/);
    const objectKey = await afterTool(client, '{"goal_id":"g-1","items":{"2":0}}');
    assert.deepEqual(callArguments(objectKey), [{ id: 'g-1', list: [0] }], 'on an object a key');
    const notAnIndex = errorMessageOf(await afterTool(client, '{"goal_id":"g-1","items":[]}'));
    assert.match(notAnIndex, /"items" has 0 entries, so no index 2$/);
  });

  test('reading through a value that is not an object or array is an error', async () => {
    const client = createScriptedModel(secondStepCalls({ id: '{{lastToolResult.goal.id}}' }));
    const message = errorMessageOf(await afterTool(client, '{"goal":"g-1"}'));
    assert.match(message, /"goal" is a string, not an object or array$/);
    const throughArray = createScriptedModel(secondStepCalls({ id: '{{lastToolResult.list.id}}' }));
    const arrayMessage = errorMessageOf(await afterTool(throughArray, '{"list":[{"id":1}]}'));
    assert.match(arrayMessage, /"list" is an array and "id" is no index$/);
  });

  test('a tool result that is not JSON, or no tool result, fails the request', async () => {
    const client = createScriptedModel(secondStepCalls({ id: '{{lastToolResult.goal_id}}' }));
    const notJson = errorMessageOf(await afterTool(client, 'created goal g-1'));
    assert.match(notJson, /rules\[0\] .* step 1, tools\[0\]\.arguments\.id: /);
    assert.match(notJson, /\{\{lastToolResult\.goal_id\}\}: the last tool result is not JSON$/);
    const replying = createScriptedModel({
      default: { reply: 'goal {{lastToolResult.goal_id}}' },
    });
    const none = errorMessageOf(await ask(replying, [user('hello')]));
    assert.match(none, /^scripted model inline: default step 0, reply: /);
    assert.match(none, /the request has no tool result yet$/);
  });

  test('a malformed path fails the file when it loads, naming the field', () => {
    assert.throws(
      () =>
        createScriptedModel(
          {
            rules: [
              {
                when: 'go',
                steps: [
                  { tools: [{ name: 'x', arguments: { list: ['{{lastToolResult.items..id}}'] } }] },
                  { reply: 'ok {{lastToolResult.}}' },
                ],
              },
            ],
            default: { output: { a: '{{lastToolResult.a b}}' } },
          },
          { name: 'bad.json' },
        ),
      (error: unknown) => {
        assert.ok(error instanceof UserError);
        assert.equal(error.code, 'INVALID_SCRIPTED_MODEL');
        const lines = error.message.split('\n').slice(1);
        assert.deepEqual(lines, [
          '  bad.json: rules[0].steps[0].tools[0].arguments.list[0]: malformed placeholder {{lastToolResult.items..id}}: a path segment is empty',
          '  bad.json: rules[0].steps[1].reply: malformed placeholder {{lastToolResult.}}: a path segment is empty',
          '  bad.json: default.output.a: malformed placeholder {{lastToolResult.a b}}: a path segment contains white space',
        ]);
        return true;
      },
    );
  });
});

/** The README's example rule that passes a returned id on to the next call. */
function readmeExampleRule(): ScriptedRule {
  const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const blocks = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const example = blocks.find((block) => block.includes('{{lastToolResult.goal_id}}'));
  assert.ok(example, 'the README shows {{lastToolResult.PATH}} in a JSON example');
  return JSON.parse(example) as ScriptedRule;
}

describe('scripted model: an id from one tool call passed to the next', () => {
  test('the README example creates a goal, then pauses it with the returned id and revision', async () => {
    const { handle, service, model } = startGoalAgent({ rules: [readmeExampleRule()] });
    const outcome = await handle.agent.prompt('keep at it: ship the release');
    handle.close();
    assert.equal(outcome.reason, 'completed');
    assert.equal(outcome.text, 'goal goal-1 is paused');
    assert.deepEqual(
      goalChanges(handle.log.events).map((change) => [change.action, change.revision]),
      [
        ['create', 1],
        ['pause', 2],
      ],
    );
    assert.equal(service.goal?.reason, 'waiting for the review');
    assert.deepEqual(model.unusedRules(), []);
  });
});
