/**
 * What a workflow script may name, through bin/loom on both engines: an agent model that names a
 * path, or a `workflow()` file outside the workspace, is refused with the rule, the same text
 * whether the file exists, is JSON or is missing; files inside the workspace and the run's own
 * scripted model still run.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { parseResult, runWorkflow, writeFile, writeJson } from './workflow-fixture.js';

const engines = ['worker', 'isolated'] as const;

/** A home configured for `engine`, a workspace (the process's folder) and a folder outside it. */
function setup(engine: (typeof engines)[number]) {
  const home = temporaryFolder('loom-reach-home-');
  writeFileSync(join(home, 'config.yaml'), `workflow:\n  engine: ${engine}\n`);
  const workspace = temporaryFolder('loom-reach-workspace-');
  const outside = temporaryFolder('loom-reach-outside-');
  const model = `scripted:${writeJson(workspace, 'model.json', { default: { reply: 'answered' } })}`;
  return { home, workspace, outside, model };
}

function header(name: string): string {
  return `export const meta = { name: '${name}', description: 'probes what a script may name' };\n`;
}

/** Runs `body` as a workflow file in the workspace with the run's model; the --json result. */
async function runScript(
  where: { home: string; workspace: string; model: string },
  name: string,
  body: string,
) {
  const script = writeFile(where.workspace, `${name}.js`, `${header(name)}${body}\n`);
  const run = await runWorkflow(['run', script, '--model', where.model, '--json'], {
    home: where.home,
    cwd: where.workspace,
  });
  return { run, result: parseResult(run) };
}

for (const engine of engines) {
  test(`${engine} engine: an agent model naming a path is refused by rule, the same whether the file is /etc/passwd, JSON outside or missing`, async () => {
    const where = setup(engine);
    const credentials = writeJson(where.outside, 'config.json', { auths: { registry: {} } });
    const specs = [
      'scripted:/etc/passwd',
      `scripted:${credentials}`,
      `scripted:${join(where.outside, 'missing.json')}`,
    ];
    const runs = await Promise.all(
      specs.map((spec, index) =>
        runScript(
          where,
          `model-${index}`,
          `return await agent('x', { model: ${JSON.stringify(spec)} });`,
        ),
      ),
    );
    const texts = runs.map(({ run, result }, index) => {
      assert.equal(run.code, 1, run.stderr);
      assert.equal(result.stopReason, 'error');
      assert.equal(result.code, 'INVALID_ARGUMENT');
      assert.equal(result.agentsStarted, 0);
      const error = String(result.error);
      assert.match(
        error,
        /is refused: a script may name only configured routes .* or the run's own model; path-bearing specs reach the host's files/,
      );
      for (const leak of [/auths/, /JSON/, /not found/, /line 1/, /root/]) {
        assert.doesNotMatch(`${run.stdout}${run.stderr}`, leak);
      }
      return error.split(JSON.stringify(specs[index])).join('SPEC');
    });
    assert.equal(new Set(texts).size, 1, texts.join('\n'));
  });

  test(`${engine} engine: workflow() of a file outside the workspace is refused the same whether it exists, is missing or is reached by a symlink`, async () => {
    const where = setup(engine);
    const escaped = writeFile(where.outside, 'escape.js', `${header('escape')}return 'escaped';\n`);
    symlinkSync(where.outside, join(where.workspace, 'link'));
    const targets = [escaped, join(where.outside, 'missing.js'), './link/escape.js', '../x.js'];
    const runs = await Promise.all(
      targets.map((target, index) =>
        runScript(where, `nested-${index}`, `return await workflow(${JSON.stringify(target)});`),
      ),
    );
    const texts = runs.map(({ run, result }, index) => {
      assert.equal(run.code, 1, run.stderr);
      assert.equal(result.stopReason, 'error');
      assert.equal(result.code, 'INVALID_ARGUMENT');
      const error = String(result.error);
      assert.match(
        error,
        /cannot run: refused: a script may run only saved workflows and files inside the workspace .* \(symlinks resolved\)/,
      );
      assert.doesNotMatch(`${run.stdout}${run.stderr}`, /escaped|no such file|meta/);
      return error.split(JSON.stringify(targets[index])).join('TARGET');
    });
    assert.equal(new Set(texts).size, 1, texts.join('\n'));
  });

  test(`${engine} engine: a workflow inside the workspace runs, and the script may name the run's own scripted model`, async () => {
    const where = setup(engine);
    mkdirSync(join(where.workspace, 'flows'));
    writeFile(
      join(where.workspace, 'flows'),
      'inner.js',
      `${header('inner')}return await agent('inner', { model: ${JSON.stringify(where.model)} });\n`,
    );
    const { run, result } = await runScript(
      where,
      'top',
      `const inner = await workflow('./flows/inner.js');
       const own = await agent('own', { model: ${JSON.stringify(` ${where.model} `)} });
       return { inner, own };`,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(result.stopReason, 'completed');
    assert.deepEqual(result.value, { inner: 'answered', own: 'answered' });
  });
}
