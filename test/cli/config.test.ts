import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runBashUnderDenyRule, runLoom } from './loom-process.js';

test('loom run: an invalid config fails naming the file, line and field', async () => {
  const home = temporaryFolder();
  writeFileSync(join(home, 'config.yaml'), 'agent:\n  maxSteps: many\n');
  const result = await runLoom(['run', '--model', 'scripted:nothing.json', 'hi'], { home });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /config\.yaml:2: agent\.maxSteps/);
});

test('loom run: without a model or key Loom says how to set one up', async () => {
  const home = temporaryFolder();
  const env = { DEEPSEEK_API_KEY: '', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', LOOM_MODEL: '' };
  const result = await runLoom(['run', '--cwd', home, 'hi'], { home, env });
  assert.equal(result.code, 2, 'a run that cannot start for want of a model is a usage error');
  assert.match(result.stderr, /DEEPSEEK_API_KEY/);
  assert.match(result.stderr, /--model scripted:FILE/);
});

test('loom run: a deny rule in config stops a bash command before it runs', async () => {
  const { folders, result } = await runBashUnderDenyRule('touch made.txt', {
    command: 'touch *',
    reason: 'no touching',
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /denied by no touching/);
  assert.deepEqual(readdirSync(folders.workspace), []);
});

test('a configured route sends the key from its variable and never logs or prints it', async () => {
  const secret = 'sk-route-secret-0123456789abcdef';
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(String(request.headers.authorization));
    response.writeHead(401, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${secret}` } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const home = temporaryFolder();
    writeFileSync(
      join(home, 'config.yaml'),
      `models:\n  local:\n    provider: openai-compatible\n    baseURL: http://127.0.0.1:${port}/v1\n    apiKeyEnv: LOCAL_KEY\n`,
    );
    const result = await runLoom(
      ['run', '--json', '--model', 'local:tiny', '--cwd', home, 'hello'],
      {
        home,
        env: { LOCAL_KEY: secret },
      },
    );
    assert.equal(result.code, 1);
    assert.deepEqual(seen, [`Bearer ${secret}`]);
    assert.match(result.stderr, /Incorrect API key provided: \[redacted\]/);
    const files = readdirSync(join(home, 'sessions')).map((name) =>
      readFileSync(join(home, 'sessions', name), 'utf8'),
    );
    for (const text of [result.stdout, result.stderr, ...files])
      assert.ok(!text.includes(secret), 'the key leaked');
  } finally {
    server.close();
  }
});
