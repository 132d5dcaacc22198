import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ndjsonLines, toolResults } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, writeScriptedModel } from './loom-process.js';

const secrets = {
  DEEPSEEK_API_KEY: 'sk-deepseek-4c1f9a7e2b',
  ROUTE_CREDENTIAL: 'route-secret-93be07d2',
  FOO_TOKEN: 'foo-token-5d2a8c61',
};

/** Every file under `folder`, as text. */
function everyFile(folder: string): Array<{ path: string; text: string }> {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((name) => join(folder, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

/**
 * Runs `loom run --json` with a scripted model whose turn `env` runs `command` in bash, the
 * scripted model kept in `modelFolder`; the bash result's content and the run's output.
 */
async function bashThroughLoom(options: {
  home: string;
  command: string;
  env: Record<string, string>;
  modelFolder?: string;
}) {
  const { home, command, env, modelFolder = home } = options;
  const workspace = temporaryFolder();
  const model = writeScriptedModel(modelFolder, {
    rules: [
      {
        when: 'env',
        steps: [{ tools: [{ name: 'bash', arguments: { command } }] }, { reply: 'done' }],
      },
    ],
  });
  const result = await runLoom(
    ['run', '--json', '--model', `scripted:${model}`, '--cwd', workspace, 'env'],
    { home, env },
  );
  assert.equal(result.code, 0, result.stderr);
  const [toolResult] = toolResults(ndjsonLines(result.stdout));
  assert.ok(toolResult, result.stdout);
  return { content: toolResult.content ?? '', stdout: result.stdout, stderr: result.stderr };
}

async function echoEnvironment(config: string) {
  const home = temporaryFolder();
  writeFileSync(join(home, 'config.yaml'), config);
  const { content, stdout } = await bashThroughLoom({
    home,
    command:
      'echo "deepseek=[$DEEPSEEK_API_KEY] route=[$ROUTE_CREDENTIAL] ' +
      'token=[$FOO_TOKEN] plain=[$PLAIN_SETTING]"',
    env: { ...secrets, PLAIN_SETTING: 'visible' },
  });
  return { home, content, stdout };
}

const routeConfig = [
  'models:',
  '  mine:',
  '    provider: openai-compatible',
  '    baseURL: http://127.0.0.1:9/v1',
  '    apiKeyEnv: ROUTE_CREDENTIAL',
  '',
].join('\n');

test('loom run: bash commands see no provider key, route key or *_TOKEN, and no key reaches LOOM_HOME', async () => {
  const { home, content, stdout } = await echoEnvironment(routeConfig);
  assert.match(content, /^deepseek=\[\] route=\[\] token=\[\] plain=\[visible\]$/m);
  for (const value of Object.values(secrets)) {
    assert.ok(!stdout.includes(value), `stdout holds ${value}`);
    for (const file of everyFile(home)) {
      assert.ok(!file.text.includes(value), `${file.path} holds ${value}`);
    }
  }
});

test('loom run: tools.bash.env.passthrough lets a named credential through, and only that one; its value is still redacted in what Loom writes', async () => {
  const { content } = await echoEnvironment(
    `${routeConfig}tools:\n  bash:\n    env:\n      passthrough: [FOO_TOKEN]\n`,
  );
  assert.match(content, /^deepseek=\[\] route=\[\] token=\[\[redacted\]\] plain=\[visible\]$/m);
});

test('loom run: tools.bash.env is a strict schema', async () => {
  const home = temporaryFolder();
  writeFileSync(
    join(home, 'config.yaml'),
    'tools:\n  bash:\n    env:\n      passthru: [FOO_TOKEN]\n',
  );
  const model = writeScriptedModel(home, { rules: [{ when: 'x', reply: 'x' }] });
  const result = await runLoom(['run', '--model', `scripted:${model}`, 'x'], { home });
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /passthru/);
});

test('loom run: with a queue provider configured, `env` in bash shows no Redis URL or password anywhere Loom writes', async () => {
  const home = temporaryFolder();
  const password = 'redis-pass-7d41c0e9b2';
  const url = `redis://:${password}@127.0.0.1:6390/0`;
  writeFileSync(
    join(home, 'config.yaml'),
    'subagents:\n  providers:\n    farm:\n      type: queue\n      redis: { urlEnv: LOOM_REDIS_URL }\n',
  );
  const result = await bashThroughLoom({
    home,
    command: 'env',
    env: { LOOM_REDIS_URL: url, PLAIN_SETTING: 'visible' },
    modelFolder: temporaryFolder(),
  });
  assert.match(result.content, /^PLAIN_SETTING=visible$/m, 'env ran');
  assert.doesNotMatch(result.content, /LOOM_REDIS_URL/);
  const outputs = [
    { path: 'stdout', text: result.stdout },
    { path: 'stderr', text: result.stderr },
    ...everyFile(home),
  ];
  for (const { path, text } of outputs) {
    assert.ok(!text.includes(password), `${path} holds the Redis password`);
    assert.ok(!text.includes(encodeURIComponent(password)), `${path} holds it URL-encoded`);
  }
});
