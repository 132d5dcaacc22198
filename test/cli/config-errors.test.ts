import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { aliasBombYaml } from '../helpers/alias-bomb.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runBashUnderDenyRule, runLoom, writeScriptedModel } from './loom-process.js';
import { runWorkflow, writeFile } from './workflow-fixture.js';

test('loom run: a deny rule for `rm -rf *` blocks it inside a compound command with odd spacing', async () => {
  const { folders, result } = await runBashUnderDenyRule(
    'echo hi &&  rm  -rf x',
    { command: 'rm -rf *', reason: 'no deleting' },
    { 'x/keep.txt': 'keep' },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /denied by no deleting/);
  assert.ok(existsSync(join(folders.workspace, 'x', 'keep.txt')), 'the folder was deleted');
});

test('loom run: a rule naming an unknown tool or argument fails with the file, line and suggestion', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { default: { reply: 'ran anyway' } });
  writeFileSync(
    join(home, 'config.yaml'),
    [
      'permissions:',
      '  - tool: bsh',
      '    action: deny',
      '  - tool: read_file',
      '    match: { pth: "*.env" }',
      '    action: deny',
    ].join('\n'),
  );
  const result = await runLoom(['run', '--model', `scripted:${model}`, '--cwd', home, 'hi'], {
    home,
  });
  assert.equal(result.code, 1);
  assert.equal(result.stdout, '');
  const file = join(home, 'config.yaml');
  assert.ok(
    result.stderr.includes(
      `${file}:2: permissions[0].tool: unknown tool "bsh" (did you mean bash?)`,
    ),
    result.stderr,
  );
  assert.ok(
    result.stderr.includes(
      `${file}:5: permissions[1].match.pth: tool read_file has no argument "pth" (did you mean path?)`,
    ),
    result.stderr,
  );
  assert.equal(existsSync(join(home, 'sessions')), false, 'nothing ran');
});

test('loom run: a UTF-16 config, a config folder and an alias bomb are refused by file name', async () => {
  const model = (home: string) => writeScriptedModel(home, { default: { reply: 'ok' } });
  const cases: Array<[string, (file: string) => void, RegExp]> = [
    [
      'UTF-16',
      (file) =>
        writeFileSync(
          file,
          Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('model: x\n', 'utf16le')]),
        ),
      /config\.yaml: is UTF-16 text; config files must be UTF-8/,
    ],
    ['a folder', (file) => mkdirSync(file), /config\.yaml: is a directory/],
    [
      'an alias bomb',
      (file) => writeFileSync(file, aliasBombYaml()),
      /config\.yaml: its YAML aliases expand too far/,
    ],
  ];
  for (const [name, write, message] of cases) {
    const home = temporaryFolder();
    write(join(home, 'config.yaml'));
    const result = await runLoom(['run', '--model', `scripted:${model(home)}`, 'hi'], { home });
    assert.equal(result.code, 1, name);
    assert.match(result.stderr, message, name);
    assert.ok(result.stderr.includes(join(home, 'config.yaml')), `${name}: ${result.stderr}`);
  }
});

test('loom run --session: a session path that is a folder is named, not EISDIR alone', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { default: { reply: 'ok' } });
  const id = '20261130-001500-abcdef';
  const path = join(home, 'sessions', `${id}.jsonl`);
  mkdirSync(path, { recursive: true });
  const result = await runLoom(['run', '--model', `scripted:${model}`, '--session', id, 'hi'], {
    home,
  });
  assert.equal(result.code, 1);
  assert.ok(result.stderr.includes(`session file ${path} is a directory`), result.stderr);
  assert.deepEqual(readdirSync(join(home, 'sessions')), [`${id}.jsonl`]);
});

test('workflow run: --args and --meta nested 4000 deep are refused by name, not with a stack overflow', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { default: { reply: 'ok' } });
  const script = writeFile(
    home,
    'flow.js',
    "export const meta = { name: 'flow', description: 'returns one' };\nreturn 1;\n",
  );
  const deep = `${'['.repeat(4000)}${']'.repeat(4000)}`;
  const argsFile = writeFile(home, 'args.json', `{"a": ${deep}}`);
  const inline = await runWorkflow(
    ['run', script, '--model', `scripted:${model}`, '--json', '--args', `{"a": ${deep}}`],
    { home },
  );
  assert.equal(inline.code, 2, inline.stderr);
  assert.match(inline.stderr, /--args: the value is nested more than 256 levels deep/);
  const fromFile = await runWorkflow(
    ['run', script, '--model', `scripted:${model}`, '--json', '--args', argsFile],
    { home },
  );
  assert.equal(fromFile.code, 2, fromFile.stderr);
  assert.ok(fromFile.stderr.includes(`--args: ${argsFile} is nested more than 256`));
  const meta = await runWorkflow(['check', script, '--meta', `{"name": ${deep}}`], { home });
  assert.equal(meta.code, 2, meta.stderr);
  assert.match(meta.stderr, /--meta: the value is nested more than 256 levels deep/);
  for (const run of [inline, fromFile, meta]) {
    assert.doesNotMatch(run.stderr, /call stack/);
  }
});

test('loom run: every problem of both config files is reported at once, unknown keys with "did you mean"', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, { default: { reply: 'ran anyway' } });
  writeFileSync(
    join(home, 'config.yaml'),
    [
      'modle: x',
      'agent:',
      '  maxStep: 3',
      'subagents:',
      '  provider: nope',
      '  maxDepth: "a"',
    ].join('\n'),
  );
  mkdirSync(join(workspace, '.loom'));
  writeFileSync(join(workspace, '.loom', 'config.yaml'), 'tols: {}\n');
  const result = await runLoom(['run', '--model', `scripted:${model}`, 'hi'], {
    home,
    cwd: workspace,
  });
  assert.equal(result.code, 1);
  const homeFile = join(home, 'config.yaml');
  const projectFile = join(workspace, '.loom', 'config.yaml');
  assert.equal(
    result.stderr,
    [
      'loom: invalid config:',
      `${homeFile}:1: modle: unknown field (did you mean model?)`,
      `${homeFile}:3: agent.maxStep: unknown field (did you mean maxSteps?)`,
      `${homeFile}:5: subagents.provider: no subagent provider named nope (known: spawn, fork, acp; define others under subagents.providers)`,
      `${homeFile}:6: subagents.maxDepth: Invalid input: expected number, received string`,
      `${projectFile}:1: tols: unknown field (did you mean tools?)`,
      '',
    ].join('\n'),
  );
});
