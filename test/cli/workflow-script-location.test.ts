/**
 * An error inside a workflow script names the script's own file and line, through bin/loom on
 * both engines: the terminal's last line, the `--json` error and the run report all point at the
 * file (a nested workflow's error at the nested file), never at the engine's `workflow-script.js`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { parseResult, runWorkflow, writeFile, writeJson } from './workflow-fixture.js';

function header(name: string): string {
  return `export const meta = { name: '${name}', description: 'fails on purpose' };\n`;
}

function setup(engine: 'worker' | 'isolated') {
  const home = temporaryFolder('loom-location-');
  writeFileSync(join(home, 'config.yaml'), `workflow:\n  engine: ${engine}\n`);
  const model = `scripted:${writeJson(home, 'model.json', { default: { reply: 'ok' } })}`;
  return { home, model };
}

for (const engine of ['worker', 'isolated'] as const) {
  test(`${engine} engine: a script's error names its file and line in the terminal, the --json error and the report`, async () => {
    const { home, model } = setup(engine);
    const script = writeFile(
      home,
      'review.js',
      `${header('review')}
function check(answer) {
  throw new Error('the check failed on ' + answer);
}
check(await agent('look'));
return 'never';
`,
    );
    const report = join(home, 'run.html');
    const run = await runWorkflow(['run', script, '--model', model, '--json', '--report', report], {
      home,
    });
    assert.equal(run.code, 1, run.stderr);
    const result = parseResult(run);
    assert.equal(result.code, 'SCRIPT_ERROR');
    const error = String(result.error);
    assert.match(error, /the check failed on ok/);
    assert.ok(error.includes(`${script}:4:`), error);
    assert.ok(error.includes(`${script}:6:`), error);
    const lastLine = run.stderr.slice(run.stderr.indexOf('workflow review error'));
    assert.ok(lastLine.includes(`${script}:4:`), run.stderr);
    const html = readFileSync(report, 'utf8');
    assert.ok(html.includes(`${script}:4:`), 'the report names the file and line');
    for (const text of [error, run.stderr, html]) {
      assert.doesNotMatch(text, /workflow-script\.js/);
    }
  });

  test(`${engine} engine: an error in a nested workflow names the nested file; a syntax error names the file and line`, async () => {
    const { home, model } = setup(engine);
    mkdirSync(join(home, 'flows'));
    const nested = writeFile(join(home, 'flows'), 'inner.js', `${header('inner')}\nnull.boom;\n`);
    const top = writeFile(
      home,
      'top.js',
      `${header('top')}return await workflow('./flows/inner.js');\n`,
    );
    const failed = await runWorkflow(['run', top, '--model', model, '--json'], { home });
    assert.equal(failed.code, 1, failed.stderr);
    const error = String(parseResult(failed).error);
    assert.ok(error.includes(`${nested}:3:`), error);
    assert.doesNotMatch(`${error}${failed.stderr}`, /workflow-script\.js/);

    const broken = writeFile(home, 'broken.js', `${header('broken')}\nconst x = 1;\nreturn x +;\n`);
    const parse = await runWorkflow(['run', broken, '--model', model, '--json'], { home });
    assert.notEqual(parse.code, 0);
    // Said on stderr (and, with --json, perhaps as a JSON error on stdout too).
    assert.ok(
      `${parse.stdout}${parse.stderr}`.includes(
        `${broken}: the workflow script does not parse at 4:11`,
      ),
      parse.stderr,
    );
  });
}
