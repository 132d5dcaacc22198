/**
 * A key must not leak through a provider that echoes it: whole `bin/loom run` and `bin/loom
 * workflow run` processes against a loopback server that answers every request with the key it
 * was sent (raw, `Bearer`, `x-api-key`, base64 of it and of `user:key`, URL-encoded) in error
 * bodies, status text, headers and a streamed error. Nothing under LOOM_HOME, on stdout, stderr
 * or in the --events file may hold it, nor decode to it.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  assertNoCredential,
  filesUnder,
  homeOutputs,
  type WatchedCredential,
} from '../helpers/credential-leaks.js';
import { type KeyEchoServer, startKeyEchoServer } from '../helpers/key-echo-server.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, writeScriptedModel } from './loom-process.js';

// Set with surrounding whitespace, as a pasted `export X='sk-… '` is; fetch sends it trimmed.
const keyAsSet = ' sk-loom/echo+7f3a9c1e5b2d4a6f8e0c= \n';
const keyAsSent = keyAsSet.trim();
const keyVariable = 'LOOM_ECHO_TEST_API_KEY';

let server: KeyEchoServer;
before(async () => {
  server = await startKeyEchoServer();
});
after(() => server.close());

function homeWithEchoRoute(): string {
  const home = temporaryFolder();
  const config = [
    'models:',
    '  echo:',
    '    provider: openai-compatible',
    `    baseURL: ${server.baseURL}`,
    `    apiKeyEnv: ${keyVariable}`,
    'retry:',
    '  maxAttempts: 2',
    '  baseDelayMs: 0',
  ].join('\n');
  writeFileSync(join(home, 'config.yaml'), `${config}\n`);
  return home;
}

const providerKey: WatchedCredential = { label: 'the provider key', asSet: keyAsSet };

function assertNoKey(outputs: Record<string, string>): void {
  assertNoCredential(outputs, [providerKey]);
}

test('loom run: a server that echoes the key (raw, trimmed, headers, base64, Bearer) leaks it nowhere', async () => {
  const home = homeWithEchoRoute();
  const workspace = temporaryFolder();
  const env = { [keyVariable]: keyAsSet };
  const modes = ['retry', 'json', 'text', 'stream'];
  const runs = await Promise.all(
    modes.map((mode) =>
      runLoom(['run', '--json', '--model', 'echo:m', '--cwd', workspace, `mode:${mode} hi`], {
        home,
        env,
      }),
    ),
  );
  const outputs: Record<string, string> = homeOutputs(home);
  runs.forEach((run, index) => {
    outputs[`stdout of ${modes[index]}`] = run.stdout;
    outputs[`stderr of ${modes[index]}`] = run.stderr;
  });
  assertNoKey(outputs);

  assert.deepEqual(new Set(server.receivedKeys), new Set([keyAsSent]), 'sent trimmed');
  for (const [index, run] of runs.entries()) {
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /error: .*\[redacted\]/, `the ${modes[index]} echo reached stderr`);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
    const end = events.find((event) => event.type === 'turn/end');
    assert.match(JSON.stringify(end?.data), /\[redacted\]/);
    if (modes[index] === 'retry') {
      const retry = events.find((event) => event.type === 'model/retry');
      assert.match(JSON.stringify(retry?.data), /HTTP 429: .*\[redacted\]/);
    }
  }
});

const ECHO_WORKFLOW = `export const meta = { name: 'echo', description: 'children whose provider echoes the key' };
const results = [];
for (const mode of ['retry', 'json', 'text', 'stream']) {
  const answer = await agent(\`mode:\${mode} go\`, { label: mode });
  log(\`\${mode}: \${answer === null ? 'failed' : 'answered'}\`);
  results.push(answer);
}
return results;
`;

test('loom workflow run: children whose server echoes the key leak it nowhere', async () => {
  const home = homeWithEchoRoute();
  const folder = temporaryFolder();
  const script = join(folder, 'echo.js');
  writeFileSync(script, ECHO_WORKFLOW);
  const eventsFile = join(folder, 'events.ndjson');
  const requestsBefore = server.modes.length;
  const run = await runLoom(
    ['workflow', 'run', script, '--model', 'echo:m', '--json', '--events', eventsFile],
    { home, env: { [keyVariable]: keyAsSet } },
  );
  const events = readFileSync(eventsFile, 'utf8');
  assertNoKey({
    ...homeOutputs(home),
    stdout: run.stdout,
    stderr: run.stderr,
    events,
  });

  assert.equal(run.code, 3, `completed with every agent failed: ${run.stderr}`);
  assert.deepEqual(server.modes.slice(requestsBefore), [
    'retry',
    'retry',
    'json',
    'text',
    'stream',
  ]);
  assert.deepEqual(new Set(server.receivedKeys), new Set([keyAsSent]), 'sent trimmed');
  const ends = events
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; outcome?: string; reason?: string })
    .filter((event) => event.type === 'workflow/agent-end');
  assert.equal(ends.length, 4);
  for (const end of ends) {
    assert.equal(end.outcome, 'failed');
    assert.match(end.reason ?? '', /\[redacted\]/);
  }
  assert.deepEqual(JSON.parse(run.stdout).value, [null, null, null, null]);
  const childSessions = filesUnder(join(home, 'sessions'));
  assert.ok(childSessions.length >= 4, 'every child wrote its session');
});

test('loom run: a provider that echoes the key in a successful reply (streamed in pieces) and quotes its first 14 and last 8 characters in an error leaks none of it', async () => {
  const home = homeWithEchoRoute();
  const workspace = temporaryFolder();
  const env = { [keyVariable]: keyAsSet };
  const [replyJson, replyText, partialJson, partialText] = await Promise.all(
    [
      ['--json', 'mode:reply hi'],
      ['mode:reply hi'],
      ['--json', 'mode:partial hi'],
      ['mode:partial hi'],
    ].map((args) =>
      runLoom(['run', '--model', 'echo:m', '--cwd', workspace, ...args], { home, env }),
    ),
  );
  const runs = { replyJson, replyText, partialJson, partialText };
  const outputs: Record<string, string> = homeOutputs(home);
  for (const [name, run] of Object.entries(runs)) {
    outputs[`stdout of ${name}`] = run?.stdout ?? '';
    outputs[`stderr of ${name}`] = run?.stderr ?? '';
  }
  assertNoKey(outputs);

  assert.equal(replyText?.code, 0, replyText?.stderr);
  assert.match(replyText?.stdout ?? '', /^Your key is \[redacted\]\. Incorrect API key provided/m);
  assert.match(replyText?.stdout ?? '', /\[redacted\]…\[redacted\]/);
  assert.equal(partialText?.code, 1);
  assert.match(partialText?.stderr ?? '', /Incorrect API key provided: \[redacted\]…\[redacted\]/);
});

/** The secrets of every source config names, none of them named like a credential. */
const sources = {
  route: { variable: 'ECHO_ROUTE_KEY', asSet: ' route-key-5b8e1f0c7a2d9364 ' },
  header: { variable: 'MCP_HEADER_VALUE', asSet: 'mcp-header-9e2b7c41d0a6f358  ' },
  environment: { variable: 'MCP_ENV_VALUE', asSet: ' mcp-env-3a8f1d6c92b0e457 ' },
  redis: {
    variable: 'LOOM_REDIS_URL',
    asSet: 'redis://:redis-pw-6c0d2e9a4f8b1375@127.0.0.1:6391/0 ',
  },
} as const;

const watchedSources: WatchedCredential[] = [
  { label: 'the route key', asSet: sources.route.asSet },
  { label: 'the MCP header secret', asSet: sources.header.asSet },
  { label: 'the MCP env secret', asSet: sources.environment.asSet },
  { label: 'the Redis URL', asSet: sources.redis.asSet, kind: 'url' },
];

const sourceEnvironment = Object.fromEntries(
  Object.values(sources).map(({ variable, asSet }) => [variable, asSet]),
);

/** Every form of every source's secret, one per line (a Redis URL: whole, and its password). */
function everyForm(): string {
  return Object.values(sources)
    .flatMap(({ asSet, variable }) => {
      const url = variable === 'LOOM_REDIS_URL' ? asSet.trim() : undefined;
      const key = url ? decodeURIComponent(new URL(url).password) : asSet.trim();
      return [
        ...(url ? [url, encodeURIComponent(url)] : [asSet]),
        key,
        `Bearer ${key}`,
        Buffer.from(key).toString('base64'),
        Buffer.from(`user:${key}`).toString('base64'),
        Buffer.from(`:${key}`).toString('base64url'),
        encodeURIComponent(key),
        `${key.slice(0, 14)}…${key.slice(-8)}`,
      ];
    })
    .join('\n');
}

/** A LOOM_HOME whose config names a secret of every source: a route, MCP header and env, a queue. */
function homeWithEverySource(mcpUrl: string, stdioServer: string): string {
  const home = temporaryFolder();
  const config = [
    'models:',
    '  mine:',
    '    provider: openai-compatible',
    '    baseURL: http://127.0.0.1:9/v1',
    `    apiKeyEnv: ${sources.route.variable}`,
    'subagents:',
    '  providers:',
    '    farm:',
    '      type: queue',
    `      redis: { urlEnv: ${sources.redis.variable} }`,
    'mcp:',
    '  servers:',
    '    remote:',
    `      url: ${mcpUrl}`,
    `      headers: { Authorization: "Bearer \${${sources.header.variable}}" }`,
    '    local:',
    `      command: ${JSON.stringify(process.execPath)}`,
    `      args: [${JSON.stringify(stdioServer)}]`,
    `      env: { ECHO_ME: "\${${sources.environment.variable}}" }`,
  ].join('\n');
  writeFileSync(join(home, 'config.yaml'), `${config}\n`);
  return home;
}

/** A stdio "MCP server" that prints the secret it was given, in several forms, and exits. */
const ENV_ECHO_SERVER = `const value = process.env.ECHO_ME ?? '';
const key = value.trim();
process.stderr.write(['as given [' + value + ']', 'key ' + key, 'base64 ' + Buffer.from('u:' + key).toString('base64'),
  'url ' + encodeURIComponent(key), 'parts ' + key.slice(0, 14) + '…' + key.slice(-8)].join('\\n') + '\\n');
process.exit(1);
`;

/** A loopback MCP endpoint that refuses every request, echoing the Authorization it was sent. */
async function startHeaderEchoServer(): Promise<{ url: string; close(): Promise<void> }> {
  const { createServer } = await import('node:http');
  const http = createServer((request, response) => {
    const token = (request.headers.authorization ?? '').replace(/^Bearer\s+/, '');
    response.writeHead(401, { 'content-type': 'text/plain' });
    response.end(
      `bad token ${token} (base64 ${Buffer.from(`x:${token}`).toString('base64')}, ${encodeURIComponent(token)}, ${token.slice(0, 14)}…${token.slice(-8)})`,
    );
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

test('every credential source (route key, MCP header and env with surrounding whitespace, Redis URL): failing MCP servers that echo them and a model that repeats every form leak nothing through loom mcp list [--json], loom run [--json], stderr, events or LOOM_HOME', async () => {
  const mcp = await startHeaderEchoServer();
  try {
    const folder = temporaryFolder();
    const stdioServer = join(folder, 'env-echo-server.mjs');
    writeFileSync(stdioServer, ENV_ECHO_SERVER);
    const home = homeWithEverySource(mcp.url, stdioServer);
    const workspace = temporaryFolder();
    writeFileSync(join(workspace, 'forms.txt'), `${everyForm()}\n`);
    const model = writeScriptedModel(folder, {
      rules: [
        {
          when: 'repeat',
          steps: [
            {
              tools: [
                { name: 'bash', arguments: { command: 'cat forms.txt; env' } },
                { name: 'read_file', arguments: { path: 'forms.txt' } },
              ],
            },
            { reply: `Here they are:\n${everyForm()}` },
          ],
        },
      ],
    });
    const env = sourceEnvironment;
    const [list, listJson, runJson, runText] = await Promise.all([
      runLoom(['mcp', 'list', '--cwd', workspace], { home, env }),
      runLoom(['mcp', 'list', '--json', '--cwd', workspace], { home, env }),
      runLoom(['run', '--json', '--model', `scripted:${model}`, '--cwd', workspace, 'repeat'], {
        home,
        env,
      }),
      runLoom(['run', '--model', `scripted:${model}`, '--cwd', workspace, 'repeat'], {
        home,
        env,
      }),
    ]);
    const runs = { list, listJson, runJson, runText };
    const outputs: Record<string, string> = homeOutputs(home);
    for (const [name, run] of Object.entries(runs)) {
      outputs[`stdout of ${name}`] = run.stdout;
      outputs[`stderr of ${name}`] = run.stderr;
    }
    assertNoCredential(outputs, watchedSources);

    for (const run of Object.values(runs)) assert.equal(run.code, 0, run.stderr);
    assert.match(list.stdout, /remote .*failed: .*bad token \[redacted\]/);
    assert.match(
      list.stdout,
      /local .*failed: .*standard error ended with: as given \[\[redacted\]\]/,
    );
    assert.match(list.stdout, /^key \[redacted\]$/m);
    const reports = listJson.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; status: { state: string } });
    assert.deepEqual(
      reports.map((report) => [report.name, report.status.state]),
      [
        ['remote', 'failed'],
        ['local', 'failed'],
      ],
    );
    const events = runJson.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
    const failed = events.filter((event) => event.type === 'mcp/server-failed');
    assert.equal(failed.length, 2, runJson.stdout);
    assert.match(JSON.stringify(failed), /\[redacted\]/);
    assert.match(runJson.stderr, /remote.*\[redacted\]/);
    const toolResults = events.filter((event) => event.type === 'tool/result');
    assert.equal(toolResults.length, 2);
    assert.match(String(toolResults[0]?.data.content), /^\[redacted\]$/m);
    assert.match(runText.stdout, /^Here they are:\n\[redacted\]/m);
  } finally {
    await mcp.close();
  }
});

const REPEAT_WORKFLOW = `export const meta = { name: 'repeat', description: 'a child that repeats every secret' };
const answer = await agent('repeat', { label: 'repeater' });
log(answer ?? 'failed');
return answer;
`;

test('loom workflow run: a child that repeats every source secret in every form leaves none in the journal, the report, the events file or stdout', async () => {
  const folder = temporaryFolder();
  const home = homeWithEverySource('http://127.0.0.1:9/mcp', join(folder, 'absent.mjs'));
  const script = join(folder, 'repeat.js');
  writeFileSync(script, REPEAT_WORKFLOW);
  const model = writeScriptedModel(folder, {
    rules: [{ when: 'repeat', reply: `Here they are:\n${everyForm()}` }],
  });
  const eventsFile = join(folder, 'events.ndjson');
  const run = await runLoom(
    ['workflow', 'run', script, '--model', `scripted:${model}`, '--json', '--events', eventsFile],
    { home, env: sourceEnvironment },
  );
  assertNoCredential(
    {
      ...homeOutputs(home),
      stdout: run.stdout,
      stderr: run.stderr,
      events: readFileSync(eventsFile, 'utf8'),
    },
    watchedSources,
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(String(JSON.parse(run.stdout).value), /^Here they are:\n\[redacted\]/);
  assert.ok(filesUnder(join(home, 'runs')).length > 0, 'the run wrote its journal');
});
