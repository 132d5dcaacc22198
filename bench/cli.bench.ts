/**
 * Command-line start-up: `loom --version` cold start and a whole one-turn `loom run` over the
 * scripted model, each the median of several runs of the built bin/loom. Measures only.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchRow } from './run.js';

const RUNS = 9;

function medianMilliseconds(args: string[], env: NodeJS.ProcessEnv): number {
  const timings: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, ['bin/loom', ...args], { env, encoding: 'utf8' });
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
    const env = { ...process.env, LOOM_HOME: home };
    const version = medianMilliseconds(['--version'], env);
    const turn = medianMilliseconds(
      ['run', '--model', `scripted:${model}`, '--cwd', home, 'hello'],
      env,
    );
    return [
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
