import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestPrompts } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, writeScriptedModel } from './loom-process.js';

interface Line {
  type: string;
  data: {
    name?: string;
    content?: string;
    isError?: boolean;
  };
}

const script = [
  "phase('fan out');",
  "const answers = await parallel(args.words.map((word) => () => agent('shout ' + word, { label: word })));",
  "log('all shouted');",
  'return { answers, count: answers.filter(Boolean).length };',
].join('\n');

test('loom run: the agent runs a workflow with the workflow tool and reads its value', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      {
        when: '^use a workflow$',
        steps: [
          {
            tools: [
              {
                name: 'workflow',
                arguments: {
                  meta: {
                    name: 'shouter',
                    description: 'Shouts each word',
                    phases: [{ title: 'fan out' }],
                  },
                  script,
                  args: { words: ['alpha', 'beta', 'gamma'] },
                },
              },
            ],
          },
          { reply: 'workflow said: {{lastToolResult}}' },
        ],
      },
      { when: '^shout (\\w+)$', reply: '{{1}}!' },
    ],
  });
  const result = await runLoom(
    ['run', '--json', '--model', `scripted:${model}`, '--cwd', home, 'use a workflow'],
    {
      home,
    },
  );
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);
  const [request] = requestPrompts(lines);
  assert.ok(request?.tools.some((tool) => tool.name === 'workflow'));
  assert.match(request?.system ?? '', /only when the user explicitly asks for a workflow/);
  const toolResult = lines.find((line) => line.type === 'tool/result');
  assert.equal(toolResult?.data.isError, false, toolResult?.data.content);
  assert.match(toolResult?.data.content ?? '', /Workflow "shouter" completed with 3 agents/);
  assert.match(toolResult?.data.content ?? '', /"alpha!"/);
  assert.match(toolResult?.data.content ?? '', /"count": 3/);
});

test('loom run: a workflow the tool cannot start is an error result naming the problem', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      {
        when: '^broken workflow$',
        steps: [
          {
            tools: [
              {
                name: 'workflow',
                arguments: {
                  meta: { name: 'x', description: 'y', colour: 'red' },
                  script: 'return 1 +;',
                },
              },
            ],
          },
          { reply: 'tool said: {{lastToolResult}}' },
        ],
      },
    ],
  });
  const result = await runLoom(
    ['run', '--model', `scripted:${model}`, '--cwd', home, 'broken workflow'],
    { home },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /META_INVALID: .*meta\.colour: unknown key/s);
});
