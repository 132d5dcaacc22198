/**
 * SPEC §3 "Model specs" through bin/loom: `run`, `workflow run` and `acp` pick the default model
 * the same way (`--model`, `$LOOM_MODEL`, config `model:`, the DeepSeek key), children without
 * a spec of their own (background, resumed) follow it, and the error when nothing applies names
 * all four. Each source points at its own scripted model, so the answer says which one was used.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { isEvent } from '../../src/core/session-events.js';
import { subagentCall } from '../helpers/scripted-turns.js';
import { sessions } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { loomAcpStream } from './loom-acp.js';
import { runLoom, startLoom } from './loom-process.js';

const PROMPT = 'who answers';
const DEEPSEEK_KEY = 'sk-model-choice-test';

/** A stand-in for the DeepSeek API on loopback: records what reached it and refuses it. */
interface FakeDeepSeek {
  server: Server;
  port: number;
  /** The `model` of each request that reached it. */
  models: string[];
  authorizations: string[];
}

let deepseek: FakeDeepSeek;

before(async () => {
  const models: string[] = [];
  const authorizations: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    request.on('end', () => {
      authorizations.push(String(request.headers.authorization));
      models.push(String((JSON.parse(body) as { model?: unknown }).model));
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'the fake deepseek was asked' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  deepseek = { server, port: (server.address() as AddressInfo).port, models, authorizations };
});

after(() => deepseek.server.close());

type Source = 'flag' | 'variable' | 'config';

/** A home whose three scripted models each answer with their source's name. */
function ladder() {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const spec = (source: Source) => {
    const path = join(home, `${source}.json`);
    writeFileSync(path, JSON.stringify({ rules: [], default: { reply: `answered by ${source}` } }));
    return `scripted:${path}`;
  };
  const specs = { flag: spec('flag'), variable: spec('variable'), config: spec('config') };
  /** The home config: with `model:` or without it. */
  const writeConfig = (withModel: boolean) =>
    writeFileSync(
      join(home, 'config.yaml'),
      withModel ? `model: ${JSON.stringify(specs.config)}\n` : 'agent:\n  maxSteps: 5\n',
    );
  return { home, workspace, specs, writeConfig };
}

type Ladder = ReturnType<typeof ladder>;

interface Attempt {
  /** `--model SPEC`, when given. */
  flag?: string;
  env: NodeJS.ProcessEnv;
}

/** The environment of every attempt: DeepSeek API requests are sent to the fake on loopback. */
function loopbackEnv(attempt: Attempt): NodeJS.ProcessEnv {
  return {
    ...attempt.env,
    NODE_OPTIONS: `--import ${JSON.stringify(resolve('test/helpers/deepseek-on-loopback.mjs'))}`,
    LOOM_TEST_DEEPSEEK_URL: `http://127.0.0.1:${deepseek.port}`,
  };
}

interface Outcome {
  /** What the model answered (the stdout of run and workflow run, the message text of acp). */
  answer: string;
  /** stderr, or for acp the error of a refused request too. */
  errors: string;
}

type Command = (setup: Ladder, attempt: Attempt) => Promise<Outcome>;

const flagArgs = (attempt: Attempt) =>
  attempt.flag !== undefined ? ['--model', attempt.flag] : [];

const loomRun: Command = async (setup, attempt) => {
  const result = await runLoom(['run', ...flagArgs(attempt), '--cwd', setup.workspace, PROMPT], {
    home: setup.home,
    env: loopbackEnv(attempt),
  });
  return { answer: result.stdout, errors: result.stderr };
};

const loomWorkflowRun: Command = async (setup, attempt) => {
  const script = join(setup.home, 'who.js');
  writeFileSync(
    script,
    `export const meta = { name: 'who', description: 'asks one agent' };\nreturn await agent(${JSON.stringify(PROMPT)});\n`,
  );
  const run = startLoom(['workflow', 'run', script, ...flagArgs(attempt)], {
    home: setup.home,
    cwd: setup.workspace,
    env: loopbackEnv(attempt),
  });
  await run.exited;
  return { answer: run.stdout(), errors: run.stderr() };
};

const loomAcp: Command = async (setup, attempt) => {
  const loom = startLoom(['acp', ...flagArgs(attempt)], {
    home: setup.home,
    env: loopbackEnv(attempt),
    keepStdinOpen: true,
  });
  let answer = '';
  let refused = '';
  const stream = loomAcpStream(loom);
  const client = acp
    .client({ name: 'model-choice-test' })
    .onNotification('session/update', ({ params: { update } }) => {
      if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text')
        answer += update.content.text;
    });
  try {
    await client.connectWith(stream, async (agent) => {
      await agent.request('initialize', {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      try {
        const { sessionId } = await agent.request('session/new', {
          cwd: setup.workspace,
          mcpServers: [],
        });
        await agent.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: PROMPT }],
        });
      } catch (error) {
        refused = describeRefusal(error);
      }
    });
  } finally {
    loom.child.stdin.end();
    const { code } = await loom.exited;
    assert.equal(code, 0, loom.stderr());
  }
  return { answer, errors: `${refused}\n${loom.stderr()}` };
};

/** An ACP error's message with its data, where the server puts the details. */
function describeRefusal(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const data = (error as { data?: unknown }).data;
  return data === undefined ? error.message : `${error.message} ${JSON.stringify(data)}`;
}

const blank = { LOOM_MODEL: ' ', DEEPSEEK_API_KEY: '' };

/** Walks the ladder down one source at a time and checks which model answered each time. */
async function checkChoiceOrder(command: Command): Promise<void> {
  const setup = ladder();
  const { specs } = setup;
  const withKey = { DEEPSEEK_API_KEY: DEEPSEEK_KEY };
  setup.writeConfig(true);

  const everything = await command(setup, {
    flag: specs.flag,
    env: { ...withKey, LOOM_MODEL: specs.variable },
  });
  assert.match(everything.answer, /answered by flag/, everything.errors);

  const variable = await command(setup, { env: { ...withKey, LOOM_MODEL: specs.variable } });
  assert.match(variable.answer, /answered by variable/, variable.errors);

  // A blank $LOOM_MODEL counts as unset.
  const config = await command(setup, { env: { ...withKey, LOOM_MODEL: ' ' } });
  assert.match(config.answer, /answered by config/, config.errors);
  assert.deepEqual(deepseek.models, [], 'nothing reached the DeepSeek API so far');

  setup.writeConfig(false);
  await command(setup, { env: { ...withKey, LOOM_MODEL: '' } });
  assert.deepEqual(deepseek.models, ['deepseek-chat'], 'the key made DeepSeek the default');
  assert.deepEqual(deepseek.authorizations, [`Bearer ${DEEPSEEK_KEY}`]);
  deepseek.models.length = 0;
  deepseek.authorizations.length = 0;

  const nothing = await command(setup, { env: blank });
  assert.doesNotMatch(nothing.answer, /answered by/);
  for (const way of ['--model', 'LOOM_MODEL', 'model:', 'DEEPSEEK_API_KEY', 'scripted:FILE'])
    assert.ok(nothing.errors.includes(way), `the error names ${way}:\n${nothing.errors}`);
  assert.deepEqual(deepseek.models, []);
}

test('loom run picks --model, then $LOOM_MODEL, then config model:, then the DeepSeek key', async () => {
  await checkChoiceOrder(loomRun);
});

test('loom workflow run picks its agents’ model in the same order', async () => {
  await checkChoiceOrder(loomWorkflowRun);
});

test('loom acp picks each session’s model in the same order', async () => {
  await checkChoiceOrder(loomAcp);
});

test('a malformed $LOOM_MODEL fails naming LOOM_MODEL; an empty --model is refused, not skipped', async () => {
  const setup = ladder();
  setup.writeConfig(true);
  const malformed = await runLoom(['run', '--cwd', setup.workspace, PROMPT], {
    home: setup.home,
    env: { LOOM_MODEL: 'nonsense', DEEPSEEK_API_KEY: '' },
  });
  assert.equal(malformed.code, 2);
  assert.match(malformed.stderr, /\$LOOM_MODEL .*"nonsense" names no provider/);
  assert.doesNotMatch(malformed.stdout, /answered by/);

  const empty = await runLoom(['run', '--model', '', '--cwd', setup.workspace, PROMPT], {
    home: setup.home,
    env: { LOOM_MODEL: setup.specs.variable },
  });
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /--model .*model spec is empty/);
  assert.doesNotMatch(empty.stdout, /answered by/);
});

test('a background child and, in the next process, the resumed child use the $LOOM_MODEL of their process', async () => {
  const home = temporaryFolder();
  const model = (name: string, rules: unknown[]) => {
    const path = join(home, `${name}.json`);
    writeFileSync(path, JSON.stringify({ rules, default: { reply: `${name} heard: {{prompt}}` } }));
    return `scripted:${path}`;
  };
  const first = model('first', [
    {
      when: '^delegate$',
      steps: [
        { tools: [subagentCall('helper', 'child task', { run_in_background: true })] },
        { reply: 'started it' },
      ],
    },
  ]);
  const delegated = await runLoom(['run', '--cwd', home, 'delegate'], {
    home,
    env: { LOOM_MODEL: first, DEEPSEEK_API_KEY: '' },
  });
  assert.equal(delegated.code, 0, delegated.stderr);
  const root = sessions(home).find((session) => session.header.parentSession === null);
  const child = sessions(home).find((session) => session.header.parentSession !== null);
  assert.ok(root && child, 'a root and its child were stored');
  const childId = child.header.sessionId;
  const lastAnswer = (id: string) =>
    sessions(home)
      .find((session) => session.header.sessionId === id)
      ?.events.filter((event) => isEvent(event, 'assistant/message'))
      .at(-1)?.data.text;
  assert.equal(lastAnswer(childId), 'first heard: child task');

  // The next process has another $LOOM_MODEL; the stopped child is resumed by send_message.
  const second = model('second', [
    {
      when: '^poke the helper$',
      steps: [
        {
          tools: [{ name: 'send_message', arguments: { subagent_id: childId, message: 'again' } }],
        },
        { reply: 'poked it' },
      ],
    },
  ]);
  const poked = await runLoom(
    ['run', '--cwd', home, '--session', root.header.sessionId, 'poke the helper'],
    {
      home,
      env: { LOOM_MODEL: second, DEEPSEEK_API_KEY: '' },
    },
  );
  assert.equal(poked.code, 0, poked.stderr);
  assert.equal(lastAnswer(childId), 'second heard: again');
});
