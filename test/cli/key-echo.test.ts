/**
 * A key must not leak through a provider that echoes it: whole `bin/loom run` and `bin/loom
 * workflow run` processes against a loopback server that answers every request with the key it
 * was sent (raw, `Bearer`, `x-api-key`, base64 of it and of `user:key`, URL-encoded) in error
 * bodies, status text, headers and a streamed error. Nothing under LOOM_HOME, on stdout, stderr
 * or in the --events file may hold it, nor decode to it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { echoedForms, type KeyEchoServer, startKeyEchoServer } from '../helpers/key-echo-server.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom } from './loom-process.js';

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

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((name) => join(folder, name))
    .filter((path) => statSync(path).isFile());
}

/** Base64 (either alphabet) runs of the text, decoded, for a key hidden in an encoding we missed. */
function decodedBase64Runs(text: string): string[] {
  return [...text.matchAll(/[A-Za-z0-9+/_-]{12,}={0,2}/g)].map((match) =>
    Buffer.from(match[0], 'base64').toString('latin1'),
  );
}

function decodedPercentRuns(text: string): string[] {
  return [...text.matchAll(/[^\s"'<>]*%[0-9A-Fa-f]{2}[^\s"'<>]*/g)].flatMap((match) => {
    try {
      return [decodeURIComponent(match[0])];
    } catch {
      return [];
    }
  });
}

function assertNoKey(outputs: Record<string, string>): void {
  const forms = [keyAsSet, ...echoedForms(keyAsSent)];
  for (const [where, text] of Object.entries(outputs)) {
    forms.forEach((form, index) => {
      assert.ok(!text.includes(form), `${where} holds the key (echoed form #${index})`);
    });
    for (const decoded of [...decodedBase64Runs(text), ...decodedPercentRuns(text)]) {
      assert.ok(!decoded.includes(keyAsSent), `${where} holds the key in an encoding`);
    }
  }
}

function homeOutputs(home: string): Record<string, string> {
  return Object.fromEntries(filesUnder(home).map((path) => [path, readFileSync(path, 'utf8')]));
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
