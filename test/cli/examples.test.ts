/**
 * Every example command of README.md and of `loom --help`, read from those texts (so the test
 * follows them), run as pasted from the repository root through `sh`. Real models are swapped for
 * the review workflow's scripted model; the command must exit 0 (a run of the review workflow:
 * 3, since that model fails one audit on purpose) and leave no failed tool call.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { sessionPaths } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { KEYS, startScreen } from '../tui/pty-screen.js';
import { LOOM_BIN } from './loom-process.js';

const ROOT = resolve('.');
const SUBSTITUTE_MODEL = `scripted:${join(ROOT, 'examples/workflows/review.model.json')}`;

/**
 * `loom workflow run` of the review workflow exits 3: the substitute model fails the audit of
 * src/legacy.js on purpose, so the run completes with a failed agent. Every other example exits 0.
 */
function expectedExit(command: string): number {
  return /\bworkflow run (\S*\/)?examples\/workflows\/review\.js\b/.test(command) ? 3 : 0;
}

/** The `sh` code blocks of the README: each line that runs `bin/loom`, continuations joined. */
function readmeExamples(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  return blocks
    .flatMap((block) => block.replace(/\\\n\s*/g, '').split('\n'))
    .map((line) => line.trim())
    .filter((line) => line.startsWith('bin/loom '));
}

/** The `$ ...` lines of the help text's Examples section. */
function helpExamples(help: string): string[] {
  return [...help.matchAll(/^ +\$ (.+)$/gm)].map((match) => (match[1] ?? '').trim());
}

interface Sandbox {
  home: string;
  scratch: string;
  env: NodeJS.ProcessEnv;
}

function sandbox(): Sandbox {
  const home = temporaryFolder();
  const scratch = temporaryFolder();
  writeFileSync(join(home, 'config.yaml'), `model: ${SUBSTITUTE_MODEL}\n`);
  const shims = temporaryFolder();
  writeFileSync(join(shims, 'loom'), `#!/bin/sh\nexec "${process.execPath}" "${LOOM_BIN}" "$@"\n`);
  chmodSync(join(shims, 'loom'), 0o755);
  const env: NodeJS.ProcessEnv = { LOOM_HOME: home, PATH: `${shims}:${process.env.PATH ?? ''}` };
  for (const name of ['HOME', 'TMPDIR', 'LANG']) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  return { home, scratch, env };
}

/** The command as it runs here: its own /tmp, a scripted model, ID the newest session. */
function adapt(command: string, sandbox: Sandbox, latestSession: string | undefined): string {
  let adapted = command
    .replaceAll('/tmp/', `${sandbox.scratch}/`)
    .replace(/--model (?!scripted:)\S+/g, `--model ${SUBSTITUTE_MODEL}`);
  if (/(^|\s)ID(\s|$)/.test(adapted)) {
    assert.ok(latestSession, `"${command}" needs a session made by an example before it`);
    adapted = adapted.replace(/(^|\s)ID(?=\s|$)/g, `$1${latestSession}`);
  }
  return adapted;
}

/** The options of an example that opens the interactive session (`loom` with no command). */
function interactiveArguments(command: string): string[] | undefined {
  const words = command.replace(/#.*$/, '').trim().split(/\s+/);
  if (words[0] !== 'loom' || !words.slice(1).every((word) => word.startsWith('--'))) {
    return undefined;
  }
  return words.slice(1);
}

/** Opens the interactive session in a pseudo-terminal, waits for its prompt and leaves with Ctrl+D. */
async function runInteractive(command: string, args: string[], box: Sandbox): Promise<void> {
  const screen = startScreen(args, { home: box.home, cwd: ROOT });
  try {
    await screen.waitFor('ask loom');
    screen.type(KEYS.ctrlD);
    const { exitCode } = await screen.exited;
    assert.equal(exitCode, 0, `"${command}" exited ${exitCode}:\n${screen.text()}`);
  } finally {
    try {
      screen.kill();
    } catch {
      // It already exited.
    }
  }
}

async function runExamples(commands: readonly string[]): Promise<void> {
  const box = sandbox();
  let latestSession: string | undefined;
  for (const command of commands) {
    const before = new Set(sessionPaths(box.home));
    const interactive = interactiveArguments(command);
    if (interactive) {
      await runInteractive(command, interactive, box);
    } else {
      const adapted = adapt(command, box, latestSession);
      const result = spawnSync('sh', ['-c', adapted], {
        cwd: ROOT,
        env: box.env,
        input: '',
        encoding: 'utf8',
      });
      const expected = expectedExit(command);
      assert.equal(
        result.status,
        expected,
        `"${command}" exited ${result.status}:\n${result.stderr}`,
      );
      if (expected === 3) assert.match(result.stderr, /^failed agents of run \S+:$/m, command);
    }
    for (const path of sessionPaths(box.home)) {
      const { header, events } = loadSessionFile(path);
      for (const event of events) {
        if (event.type === 'tool/result') {
          const data = event.data as { name: string; isError: boolean; content: string };
          assert.equal(data.isError, false, `"${command}": ${data.name} failed: ${data.content}`);
        }
      }
      if (!before.has(path) && header.delegationDepth === 0) latestSession = header.sessionId;
    }
  }
}

test('the README examples read from README.md', () => {
  const commands = readmeExamples(readFileSync('README.md', 'utf8'));
  assert.ok(commands.length >= 5, `only ${commands.length} examples found`);
  assert.ok(commands.some((command) => command.includes('--events')));
});

test('every README example works when pasted from the repository root', async () => {
  await runExamples(readmeExamples(readFileSync('README.md', 'utf8')));
});

test('every example of loom --help works when pasted from the repository root', async () => {
  const help = spawnSync(process.execPath, [LOOM_BIN, '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0, help.stderr);
  const commands = helpExamples(help.stdout);
  assert.ok(commands.length >= 8, `only ${commands.length} examples found`);
  await runExamples(commands);
});
