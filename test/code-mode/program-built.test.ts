/**
 * The built program engine (dist/code-mode/program-runner.js with the bundled
 * program-worker.cjs the build puts beside it) under plain node, without tsx: the thread runs
 * the bundled entry, a program calls a tool and returns, an abort ends a spin, and the process
 * then exits on its own although the runner is never closed (idle threads keep nothing alive).
 * `npm test` builds before running the tests.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const required = [
  'code-mode/program-runner.js',
  'code-mode/program-thread.js',
  'code-mode/program-worker.cjs',
  'bundle/program-worker.cjs',
];

function distUrl(path: string): string {
  return JSON.stringify(pathToFileURL(`${dist}${path}`).href);
}

const program = `
const { createProgramRunner } = await import(${distUrl('code-mode/program-runner.js')});
const { programWorkerEntry } = await import(${distUrl('code-mode/program-thread.js')});
// Two warm threads: one at least is never used, and must not keep the process alive either.
const runner = createProgramRunner({ warmThreads: 2 });
const limits = { timeoutMs: 10000, memoryMb: 16, outputBytes: 1000 };
const calls = [];
const returned = await runner.run({
  code: "console.log('reading'); return (await tools.read_file({ path: 'a' })).toUpperCase();",
  toolNames: ['read_file'], limits, signal: new AbortController().signal,
  callTool: async (call) => { calls.push(call); return { ok: true, text: 'text of a' }; },
});
const controller = new AbortController();
const aborted = await runner.run({
  code: "tools.started(); while (true) {}",
  toolNames: ['started'], limits, signal: controller.signal,
  callTool: async () => { controller.abort(); return { ok: true, text: '' }; },
});
process.stdout.write(JSON.stringify({ entry: programWorkerEntry().pathname.split('/').pop(), returned, aborted: aborted.reason, calls }));
`;

test('the built engine runs its bundled worker under plain node and lets the process exit', async () => {
  const missing = required.filter((path) => !existsSync(`${dist}${path}`));
  assert.deepEqual(
    missing,
    [],
    `dist/ lacks ${missing.join(', ')}: run \`npm run build\` first (\`npm test\` builds before the tests)`,
  );
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const { code, signal, stdout, stderr } = await new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => {
    const child = execFile(
      process.execPath,
      ['--input-type=module', '--eval', program],
      { env, timeout: 60_000 },
      (_error, stdout, stderr) =>
        resolve({ code: child.exitCode, signal: child.signalCode, stdout, stderr }),
    );
  });
  assert.equal(
    code,
    0,
    `plain node did not exit cleanly (a hang is killed after 60 s): code ${code}, ` +
      `signal ${signal}\nstdout: ${stdout}\nstderr: ${stderr}`,
  );
  assert.deepEqual(JSON.parse(stdout), {
    entry: 'program-worker.cjs',
    returned: { kind: 'returned', json: '"TEXT OF A"', console: 'reading\n', truncated: false },
    aborted: 'aborted',
    calls: [{ index: 1, name: 'read_file', arguments: { path: 'a' } }],
  });
});
