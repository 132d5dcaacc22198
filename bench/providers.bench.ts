/**
 * One prompt to a final answer through the real-provider path: whole `bin/loom run` processes
 * against instant loopback stand-ins (bench/fake-provider.mjs, started here) of an
 * OpenAI-compatible server (`--model openai-compatible:M@http://127.0.0.1:PORT/v1`) and of the
 * Anthropic messages API (`anthropic:claude-sonnet-4-5` with ANTHROPIC_BASE_URL at the stand-in), beside the scripted model and
 * `node -e 0`, interleaved over several rounds so drift on a shared machine falls on all alike.
 * The targets of issue 36 are ratios against `node -e 0`. Measures only.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchRow } from './run.js';

const ROUNDS = 7;
const RUNS_PER_ROUND = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function timed(args: string[], env: NodeJS.ProcessEnv, cwd: string): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { env, cwd, encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
  return elapsed;
}

/** Starts the stand-in in its own process; resolves with its port and a stop function. */
async function startFakeProvider(): Promise<{ port: number; stop: () => void }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'fake-provider.mjs')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('utf8').trim())));
    child.once('exit', () => reject(new Error('bench/fake-provider.mjs exited before listening')));
  });
  return { port, stop: () => child.stdin.end() };
}

export default async function providersBench(): Promise<BenchRow[]> {
  const home = mkdtempSync(join(tmpdir(), 'loom-bench-providers-'));
  const workspace = mkdtempSync(join(tmpdir(), 'loom-bench-providers-work-'));
  const fake = await startFakeProvider();
  try {
    const base = `http://127.0.0.1:${fake.port}/v1`;
    const scripted = join(home, 'model.json');
    writeFileSync(scripted, JSON.stringify({ default: { reply: 'hello' } }));
    // No config file: as a user first runs it. The Anthropic provider takes its base URL from
    // ANTHROPIC_BASE_URL, and knows the model from the catalog.
    const openAiSpec = `openai-compatible:bench@${base}`;
    const env = {
      ...process.env,
      LOOM_HOME: home,
      ANTHROPIC_API_KEY: 'bench-key',
      ANTHROPIC_BASE_URL: base,
    };
    const loom = join(import.meta.dirname, '..', 'bin', 'loom');
    const runs: Record<string, string[]> = {
      node: ['-e', '0'],
      scripted: [loom, 'run', '--model', `scripted:${scripted}`, 'hi'],
      openAiCompatible: [loom, 'run', '--model', openAiSpec, 'hi'],
      anthropic: [loom, 'run', '--model', 'anthropic:claude-sonnet-4-5', 'hi'],
    };
    const timings: Record<string, number[]> = Object.fromEntries(
      Object.keys(runs).map((name) => [name, []]),
    );
    for (const args of Object.values(runs)) timed(args, env, workspace);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, args] of Object.entries(runs)) {
        for (let run = 0; run < RUNS_PER_ROUND; run++)
          timings[name]?.push(timed(args, env, workspace));
      }
    }
    const node = median(timings.node ?? []);
    const ratio = (value: number) => Math.round((value / node) * 100) / 100;
    const row = (label: string, name: string, limit?: number): BenchRow => {
      const value = median(timings[name] ?? []);
      return {
        name: `providers: ${label} (median of ${ROUNDS * RUNS_PER_ROUND}, interleaved): ${Math.round(value)} ms, / node -e 0`,
        value: ratio(value),
        unit: 'x',
        ...(limit !== undefined && { target: `<= ${limit} x`, ok: value / node <= limit }),
      };
    };
    return [
      {
        name: `providers: node -e 0, the baseline (median of ${ROUNDS * RUNS_PER_ROUND})`,
        value: Math.round(node),
        unit: 'ms',
      },
      row('one prompt, scripted model', 'scripted'),
      row('one prompt, openai-compatible route on a loopback server', 'openAiCompatible', 3),
      row('one prompt, Anthropic route on a loopback server', 'anthropic', 3.5),
    ];
  } finally {
    fake.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}
