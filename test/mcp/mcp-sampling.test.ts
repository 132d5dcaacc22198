/**
 * Sampling and elicitation through bin/loom with the everything server and the scripted model:
 * `sampling: ask` approved from `--answers` (logged as a question, then `mcp/sampling`, its
 * tokens in the turn's usage as a `model/side-request`), the default `ask` refused headless with
 * the config key named and the form declined at once, `deny` refused; over stdio and streamable
 * HTTP. Headless, the requests the server sends as tasks end the same way (the sampling task
 * failed with the refusal, the form task declined) and a URL elicitation is a question, declined.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { runScripted, scriptedFolders } from '../cli/loom-process.js';
import { parseResult, runWorkflow, writeFile, writeJson } from '../cli/workflow-fixture.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { EVERYTHING_SERVER, type HttpServer, startEverythingServer } from './mcp-fixtures.js';

interface JsonEvent {
  sessionId: string;
  type: string;
  data: Record<string, unknown>;
}

/** The main turn's steps and reply cost these tokens each; the sampling request costs 13 + 4. */
const STEP_USAGE = { input: 100, output: 10 };
const SAMPLING_USAGE = { input: 13, output: 4 };

let http: HttpServer;
before(async () => {
  http = await startEverythingServer('streamableHttp');
});
after(() => http.stop());

/**
 * One run whose model calls the server's sampling and elicitation tools; `server` is `every`
 * (stdio, in config) or `web` (streamable HTTP, in `.mcp.json`), with `sampling` as given.
 */
async function run(
  server: 'every' | 'web',
  sampling: string | undefined,
  answers: Record<string, unknown> | undefined,
  more: Array<{ tool: string; arguments: Record<string, unknown> }> = [],
) {
  const calls = [
    { name: `mcp__${server}__trigger-sampling-request`, arguments: { prompt: 'a line' } },
    { name: `mcp__${server}__trigger-elicitation-request`, arguments: {} },
    ...more.map((call) => ({ name: `mcp__${server}__${call.tool}`, arguments: call.arguments })),
  ];
  const folders = scriptedFolders({
    rules: [
      { ...callsThenReply('go', calls, 'done'), usage: STEP_USAGE },
      {
        when: '^Resource trigger-sampling-request context: a line$',
        reply: 'sampled',
        usage: SAMPLING_USAGE,
      },
    ],
  });
  const policy = sampling === undefined ? '' : `, sampling: ${sampling}`;
  if (server === 'every') {
    writeFileSync(
      join(folders.home, 'config.yaml'),
      `mcp:\n  servers:\n    every: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio]${policy} }\n`,
    );
  } else {
    writeFileSync(
      join(folders.workspace, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          web: { type: 'http', url: http.url, ...(sampling ? { sampling } : {}) },
        },
      }),
    );
  }
  const args: string[] = [];
  if (answers) {
    const file = join(folders.home, 'answers.json');
    writeFileSync(file, JSON.stringify(answers));
    args.push('--answers', file);
  }
  const result = await runScripted(folders, 'go', { json: true, args });
  assert.equal(result.code, 0, result.stderr);
  const all = result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as JsonEvent);
  const file = join(folders.home, 'sessions', `${all[0]?.sessionId}.jsonl`);
  assert.deepEqual(checkSessionInvariants(loadSessionFile(file).events), []);
  const results = all.filter((event) => event.type === 'tool/result').map((event) => event.data);
  const resultOf = (tool: string) =>
    String(results.find((data) => data.name === `mcp__${server}__${tool}`)?.content);
  const of = (type: string) => all.filter((event) => event.type === type).map((e) => e.data);
  return { all, resultOf, of };
}

for (const server of ['every', 'web'] as const) {
  const over = server === 'every' ? 'stdio' : 'streamable HTTP';

  test(`over ${over}: sampling: ask approved from --answers runs on the agent's model; its tokens count in the turn`, async () => {
    const { resultOf, of } = await run(server, 'ask', {
      [`mcp.servers.${server}.sampling`]: 'allow',
      name: 'Grace Hopper',
      check: 'no',
      firstLine: 'It was a dark and stormy night.',
      email: 'grace@example.com',
      homepage: '(leave empty)',
      birthdate: '1906-12-09',
      integer: '7',
      number: '(leave empty)',
      untitledSingleSelectEnum: 'Ross',
      untitledMultipleSelectEnum: ['Bass'],
      titledSingleSelectEnum: 'hero-1',
      titledMultipleSelectEnum: ['Trout', 'Salmon'],
      legacyTitledEnum: 'Fish',
    });
    assert.match(resultOf('trigger-sampling-request'), /"text": "sampled"/);
    assert.match(
      resultOf('trigger-elicitation-request'),
      /^✅ User provided the requested information!\nUser inputs:\n- Name: Grace Hopper\n- Agreed to terms: false\n- Email: grace@example\.com\n- Birthdate: 1906-12-09\n- Favorite Integer: 7\n/,
    );
    assert.doesNotMatch(resultOf('trigger-elicitation-request'), /Homepage|Favorite Number/);
    const asked = of('question/ask');
    assert.equal(asked.length, 2, 'the approval, then the form');
    const [approval, form] = asked as Array<{
      callId: string;
      questions: Array<{ header: string }>;
    }>;
    assert.deepEqual(
      approval?.questions.map((question) => question.header),
      [`mcp.servers.${server}.sampling`],
    );
    assert.deepEqual(form?.questions.map((question) => question.header).slice(0, 3), [
      'name',
      'check',
      'firstLine',
    ]);
    const calls = of('tool/call') as Array<{ callId: string; name: string }>;
    assert.equal(approval?.callId, calls[0]?.callId, 'paired with the sampling tool call');
    assert.equal(form?.callId, calls[1]?.callId, 'paired with the elicitation tool call');
    assert.deepEqual(
      of('question/answer').map((answer) => answer.outcome),
      ['answered', 'answered'],
    );
    const [sampled] = of('mcp/sampling');
    assert.deepEqual(
      { ...sampled, model: typeof sampled?.model },
      {
        server,
        callId: calls[0]?.callId,
        tool: 'trigger-sampling-request',
        policy: 'ask',
        outcome: 'answered',
        model: 'string',
        usage: SAMPLING_USAGE,
      },
    );
    const side = of('model/side-request');
    assert.equal(side.length, 1);
    assert.equal(side[0]?.purpose, 'mcp-sampling');
    assert.deepEqual(side[0]?.usage, SAMPLING_USAGE);
    // Three model requests of the turn (two tool steps and the reply) and the sampling request.
    const [end] = of('turn/end');
    assert.deepEqual(end?.usage, {
      input: 3 * STEP_USAGE.input + SAMPLING_USAGE.input,
      output: 3 * STEP_USAGE.output + SAMPLING_USAGE.output,
    });
  });

  test(`over ${over}: headless with nobody to ask, the default ask refuses sampling naming the key and the form is declined at once`, async () => {
    const { resultOf, of } = await run(server, undefined, undefined);
    assert.match(
      resultOf('trigger-sampling-request'),
      new RegExp(
        `mcp\\.servers\\.${server}\\.sampling is ask and nobody approved it .*set mcp\\.servers\\.${server}\\.sampling: allow`,
      ),
    );
    assert.match(
      resultOf('trigger-elicitation-request'),
      /^❌ User declined to provide the requested information\./,
    );
    assert.deepEqual(
      of('question/answer').map((answer) => [answer.outcome, answer.code]),
      [
        ['refused', 'NO_USER'],
        ['refused', 'NO_USER'],
      ],
    );
    assert.deepEqual(
      of('mcp/sampling').map((event) => [event.policy, event.outcome]),
      [['ask', 'refused']],
    );
    assert.deepEqual(of('model/side-request'), []);
  });
}

test('headless over stdio: a sampling task fails naming the key; the form task and the URL are declined, asked as questions, no browser opened', async () => {
  const { resultOf, of } = await run('every', undefined, undefined, [
    { tool: 'trigger-sampling-request-async', arguments: { prompt: 'a line' } },
    { tool: 'trigger-elicitation-request-async', arguments: {} },
    {
      tool: 'trigger-url-elicitation',
      arguments: { url: 'https://example.com/sign-in', message: 'Sign in, please.' },
    },
  ]);
  assert.match(
    resultOf('trigger-sampling-request-async'),
    /^\[FAILED\] .*mcp\.servers\.every\.sampling is ask and nobody approved it .*set mcp\.servers\.every\.sampling: allow to run its requests without asking\n\nProgress:\nTask created: /,
  );
  assert.match(
    resultOf('trigger-elicitation-request-async'),
    /^\[DECLINED\] User declined to provide the requested information\.\n\nProgress:\nTask created: /,
  );
  assert.match(
    resultOf('trigger-url-elicitation'),
    /^❌ User declined to open the URL \(Elicitation ID: \S+\)\.\n/,
  );
  const asked = of('question/ask') as Array<{
    callId: string;
    questions: Array<{ header: string; question: string; options: Array<{ label: string }> }>;
  }>;
  const url = asked.find((event) => event.questions[0]?.header === 'URL');
  assert.match(
    String(url?.questions[0]?.question),
    /^MCP server every asks you to open this URL in your browser: https:\/\/example\.com\/sign-in\nSign in, please\.\n/,
  );
  assert.deepEqual(
    url?.questions[0]?.options.map((option) => option.label),
    ['done', 'decline'],
  );
  const answers = of('question/answer') as Array<{
    callId: string;
    outcome: string;
    code?: string;
  }>;
  assert.deepEqual(
    answers
      .filter((answer) => answer.callId === url?.callId)
      .map((answer) => [answer.outcome, answer.code]),
    [['refused', 'NO_USER']],
  );
  assert.equal(answers.length, 5, 'two sampling approvals, two forms and the URL, each refused');
  assert.ok(answers.every((answer) => answer.outcome === 'refused' && answer.code === 'NO_USER'));
});

test('sampling: deny refuses at once, without asking', async () => {
  const { resultOf, of } = await run('every', 'deny', {
    'mcp.servers.every.sampling': 'allow',
  });
  assert.match(
    resultOf('trigger-sampling-request'),
    /MCP server every may not sample the model \(mcp\.servers\.every\.sampling: deny\)/,
  );
  const asked = of('question/ask') as Array<{ questions: Array<{ header: string }> }>;
  assert.ok(asked.every((event) => event.questions[0]?.header !== 'mcp.servers.every.sampling'));
  assert.deepEqual(
    of('mcp/sampling').map((event) => [event.policy, event.outcome]),
    [['deny', 'refused']],
  );
});

test("a workflow agent's sampling request counts in its tokens and the run's budget", async () => {
  const home = temporaryFolder();
  writeFileSync(
    join(home, 'config.yaml'),
    `mcp:\n  servers:\n    every: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING_SERVER)}, stdio], sampling: allow }\n`,
  );
  const script = writeFile(
    home,
    'one.js',
    "export const meta = { name: 'one', description: 'One agent that samples' };\nreturn await agent('sample it');\n",
  );
  const model = writeJson(home, 'model.json', {
    rules: [
      {
        ...callsThenReply(
          'sample it',
          [{ name: 'mcp__every__trigger-sampling-request', arguments: { prompt: 'a line' } }],
          'done',
        ),
        usage: STEP_USAGE,
      },
      {
        when: '^Resource trigger-sampling-request context: a line$',
        reply: 'sampled',
        usage: SAMPLING_USAGE,
      },
    ],
  });
  const run = await runWorkflow(['run', script, '--model', `scripted:${model}`, '--json'], {
    home,
  });
  assert.equal(run.code, 0, run.stderr);
  const result = parseResult(run);
  const expected = {
    input: 2 * STEP_USAGE.input + SAMPLING_USAGE.input,
    output: 2 * STEP_USAGE.output + SAMPLING_USAGE.output,
  };
  assert.deepEqual(result.tokens, expected);
  assert.deepEqual((result.agents as Array<{ tokens: unknown }>)[0]?.tokens, expected);
  // A budget the step requests alone stay under is spent once the sampling request is counted.
  const under = await runWorkflow(
    [
      'run',
      script,
      '--model',
      `scripted:${model}`,
      '--json',
      '--budget-tokens',
      String(2 * (STEP_USAGE.input + STEP_USAGE.output) + 1),
    ],
    { home },
  );
  assert.equal(parseResult(under).code, 'BUDGET_EXHAUSTED', under.stderr);
});
