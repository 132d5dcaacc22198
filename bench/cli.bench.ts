/**
 * Command-line start-up: `loom --version` cold start, a whole one-turn `loom run` over the
 * scripted model, a one-agent `loom workflow run`, the time `loom acp` takes to answer
 * `initialize`, and the same turn running 20 `bash` commands (each behind its watchdog), each the
 * median of several runs of the built bin/loom, with `node -e 0` from the same run as the baseline
 * since absolute times drift on a shared machine. The targets of issue 14 are ratios against that
 * baseline. Measures only.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchRow } from './run.js';

const RUNS = 9;

const BASH_CALLS = 20;

function median(timings: number[]): number {
  const sorted = [...timings].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function medianMilliseconds(args: string[], env: NodeJS.ProcessEnv, script = 'bin/loom'): number {
  const timings: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, [script, ...args], { env, encoding: 'utf8' });
    timings.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`loom ${args.join(' ')} failed: ${result.stderr}`);
  }
  return median(timings);
}

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: 1, clientCapabilities: {} },
})}\n`;

/** From spawning `loom acp` to its answer to `initialize` on stdout; then it is told to stop. */
async function acpInitializeMilliseconds(model: string, env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/loom', 'acp', '--model', `scripted:${model}`], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const answered = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.includes('"id":0')) resolve(performance.now() - started);
    });
    child.on('exit', () => reject(new Error(`loom acp exited before answering: ${stderr}`)));
    child.stdin.write(INITIALIZE);
  });
  child.stdin.end();
  await exited;
  return answered;
}

export default async function cliBench(): Promise<BenchRow[]> {
  const home = mkdtempSync(join(tmpdir(), 'loom-bench-cli-'));
  // Turns work in a folder of their own, as a user's do: a workspace that is LOOM_HOME itself
  // gets no checkpoints (the store would be inside every snapshot).
  const workspace = mkdtempSync(join(tmpdir(), 'loom-bench-cli-workspace-'));
  writeFileSync(join(workspace, 'notes.txt'), 'notes\n');
  try {
    const model = join(home, 'model.json');
    writeFileSync(model, JSON.stringify({ rules: [], default: { reply: 'ok: {{prompt}}' } }));
    const commands = join(home, 'commands.json');
    const bashCall = { name: 'bash', arguments: { command: 'true' } };
    writeFileSync(
      commands,
      JSON.stringify({
        rules: [
          {
            when: '^commands$',
            steps: [
              ...Array.from({ length: BASH_CALLS }, () => ({ tools: [bashCall] })),
              { reply: 'done' },
            ],
          },
        ],
      }),
    );
    const script = join(home, 'one-agent.js');
    writeFileSync(
      script,
      "export const meta = { name: 'one', description: 'one agent' };\nreturn await agent('hello');\n",
    );
    const env = { ...process.env, LOOM_HOME: home };
    const node = medianMilliseconds(['0'], env, '-e');
    const version = medianMilliseconds(['--version'], env);
    const turn = medianMilliseconds(
      ['run', '--model', `scripted:${model}`, '--cwd', workspace, 'hello'],
      env,
    );
    const workflow = medianMilliseconds(
      ['workflow', 'run', script, '--model', `scripted:${model}`, '--json'],
      env,
    );
    const acpTimings: number[] = [];
    for (let run = 0; run < RUNS; run++)
      acpTimings.push(await acpInitializeMilliseconds(model, env));
    const acpInitialize = median(acpTimings);
    const withCommands = medianMilliseconds(
      ['run', '--model', `scripted:${commands}`, '--cwd', workspace, 'commands'],
      env,
    );
    // As most users run it: with a config file to read (yaml) and one tool call (ajv checks it).
    const configured = mkdtempSync(join(tmpdir(), 'loom-bench-cli-config-'));
    writeFileSync(join(configured, 'config.yaml'), 'agent:\n  maxSteps: 50\n');
    const readCall = { name: 'read_file', arguments: { path: 'notes.txt' } };
    const reader = join(home, 'reader.json');
    writeFileSync(
      reader,
      JSON.stringify({ rules: [], default: { steps: [{ tools: [readCall] }, { reply: 'read' }] } }),
    );
    const configuredTurn = medianMilliseconds(
      ['run', '--model', `scripted:${reader}`, '--cwd', workspace, 'read'],
      { ...env, LOOM_HOME: configured },
    );
    rmSync(configured, { recursive: true, force: true });
    const ratio = (value: number) => Math.round((value / node) * 100) / 100;
    const target = (name: string, value: number, limit: number): BenchRow => ({
      name: `${name} (median of ${RUNS}): ${Math.round(value)} ms, / node -e 0`,
      value: ratio(value),
      unit: 'x',
      target: `<= ${limit} x`,
      ok: value / node <= limit,
    });
    return [
      {
        name: `cli: node -e 0, the baseline (median of ${RUNS})`,
        value: Math.round(node),
        unit: 'ms',
      },
      target('cli: loom --version', version, 1.3),
      target('cli: one-turn scripted loom run', turn, 2),
      {
        name: `cli: a scripted loom run with a config file and one read_file call (median of ${RUNS}): ${Math.round(configuredTurn)} ms, / node -e 0`,
        value: ratio(configuredTurn),
        unit: 'x',
      },
      target('cli: one-agent loom workflow run', workflow, 2.5),
      target('cli: loom acp answers initialize', acpInitialize, 2),
      {
        name: `cli: one bash command in a scripted turn (${BASH_CALLS} calls, median of ${RUNS})`,
        value: Math.round(((withCommands - turn) / BASH_CALLS) * 100) / 100,
        unit: 'ms',
      },
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}
