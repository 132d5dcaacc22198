/**
 * Command-line start-up: `loom --version` cold start, a whole one-turn `loom run` over the
 * scripted model, and the same turn running 20 `bash` commands (each behind its watchdog), each the
 * median of several runs of the built bin/loom, with `node -e 0` from the same run as the baseline
 * since absolute times drift on a shared machine. Measures only.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchRow } from './run.js';

const RUNS = 9;

const BASH_CALLS = 20;

function medianMilliseconds(args: string[], env: NodeJS.ProcessEnv, script = 'bin/loom'): number {
  const timings: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, [script, ...args], { env, encoding: 'utf8' });
    timings.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`loom ${args.join(' ')} failed: ${result.stderr}`);
  }
  timings.sort((left, right) => left - right);
  return timings[Math.floor(RUNS / 2)] ?? 0;
}

export default async function cliBench(): Promise<BenchRow[]> {
  const home = mkdtempSync(join(tmpdir(), 'loom-bench-cli-'));
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
    const env = { ...process.env, LOOM_HOME: home };
    const node = medianMilliseconds(['0'], env, '-e');
    const version = medianMilliseconds(['--version'], env);
    const turn = medianMilliseconds(
      ['run', '--model', `scripted:${model}`, '--cwd', home, 'hello'],
      env,
    );
    const withCommands = medianMilliseconds(
      ['run', '--model', `scripted:${commands}`, '--cwd', home, 'commands'],
      env,
    );
    const ratio = (value: number) => Math.round((value / node) * 100) / 100;
    return [
      {
        name: `cli: node -e 0, the baseline (median of ${RUNS})`,
        value: Math.round(node),
        unit: 'ms',
      },
      { name: 'cli: loom --version / node -e 0', value: ratio(version), unit: 'x' },
      { name: 'cli: one-turn scripted loom run / node -e 0', value: ratio(turn), unit: 'x' },
      {
        name: `cli: one bash command in a scripted turn (${BASH_CALLS} calls, median of ${RUNS})`,
        value: Math.round(((withCommands - turn) / BASH_CALLS) * 100) / 100,
        unit: 'ms',
      },
      {
        name: `cli: loom --version cold start (median of ${RUNS})`,
        value: Math.round(version),
        unit: 'ms',
        target: '< 150 ms',
        ok: version < 150,
      },
      {
        name: `cli: one-turn scripted loom run (median of ${RUNS})`,
        value: Math.round(turn),
        unit: 'ms',
        target: '< 400 ms',
        ok: turn < 400,
      },
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
