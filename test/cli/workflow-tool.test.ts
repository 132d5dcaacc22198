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
  // Deferred: listed by name in the first request; the call loads it for the next one.
  const [request, next] = requestPrompts(lines);
  const listing = request?.tools.find((tool) => tool.name === 'load_tools')?.description ?? '';
  assert.match(listing, /^- workflow: /m);
  assert.ok(next?.tools.some((tool) => tool.name === 'workflow'));
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

/** A `loom run` whose model calls the workflow tool once with `toolArguments` and replies with its result. */
function toolCallingModel(toolArguments: Record<string, unknown>, rules: unknown[]): unknown {
  return {
    rules: [
      {
        when: '^use a workflow$',
        steps: [
          { tools: [{ name: 'workflow', arguments: toolArguments }] },
          { reply: 'tool said: {{lastToolResult}}' },
        ],
      },
      ...rules,
    ],
  };
}

test('loom run: the workflow tool resumes a run that stopped: its completed agents answer from the journal', async () => {
  const home = temporaryFolder();
  const meta = { name: 'resumable', description: 'stops, then resumes' };
  const stopping = "const first = await agent('steady'); throw new Error('stopped after steady');";
  const first = await runLoom(
    [
      'run',
      '--model',
      `scripted:${writeScriptedModel(home, toolCallingModel({ meta, script: stopping }, [{ when: '^steady$', reply: 'steady answer' }]))}`,
      '--cwd',
      home,
      'use a workflow',
    ],
    { home },
  );
  assert.equal(first.code, 0, first.stderr);
  const runId = /Run id (workflow-[0-9a-f-]{36}): call again with resume/.exec(first.stdout)?.[1];
  assert.ok(runId, first.stdout);

  // The model passes the script again, edited; the journaled call must not reach the model.
  const finishing = "return { first: await agent('steady'), second: await agent('second') };";
  const second = await runLoom(
    [
      'run',
      '--model',
      `scripted:${writeScriptedModel(
        home,
        toolCallingModel({ meta, script: finishing, resume: runId }, [
          { when: '^steady$', error: 'the journaled call reached the model' },
          { when: '^second$', reply: 'second answer' },
        ]),
      )}`,
      '--cwd',
      home,
      'use a workflow',
    ],
    { home },
  );
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /Workflow "resumable" completed with 2 agents/);
  assert.match(second.stdout, /"first": "steady answer"/);
  assert.match(second.stdout, /"second": "second answer"/);

  // With only `resume`, the kept (latest) script reruns; every call is answered from the journal.
  const third = await runLoom(
    [
      'run',
      '--model',
      `scripted:${writeScriptedModel(
        home,
        toolCallingModel({ resume: runId }, [
          { when: '^(steady|second)$', error: 'a journaled call reached the model' },
        ]),
      )}`,
      '--cwd',
      home,
      'use a workflow',
    ],
    { home },
  );
  assert.equal(third.code, 0, third.stderr);
  assert.match(third.stdout, /Workflow "resumable" completed with 2 agents/);
  assert.match(third.stdout, /"second": "second answer"/);
});
