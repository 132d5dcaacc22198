/**
 * Issue 36's figure: what one more agent of a `pipeline` costs a whole `bin/loom workflow run`.
 * A 200-agent pipeline of instant scripted children at 16 slots against a 1-agent one, in turn
 * with `node -e 0` (the baseline of every CLI figure, since absolute times drift on a shared
 * machine); per agent = (wall of the 200-agent run - wall of the 1-agent run) / 199, the median
 * of RUNS such pairs. With CLAUDE_BIN naming a Claude Code executable, the same pipeline runs in
 * it against bench/fake-provider.mjs (every request answered at once; the first offers the
 * workflow tool the script; its Workflow tool takes only a script opening with a literal `meta`),
 * and a last row gives Claude Code's per-agent cost over Loom's from the same run. Homes on
 * tmpfs when there is one (see workflow.bench.ts), kept until the end. Measures only.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { BenchRow } from './run.js';

const RUNS = 7;
const AGENTS = 200;
const SLOTS = 16;
const TARGET_MS = 0.3;
const LIGHTER_THAN_CLAUDE = 35;
/**
 * `node -e 0` on the machine issue 36 was measured on: its 146 ms prompt was 6.4 times it. The
 * issue sets every target as a ratio to `node -e 0`, but this one in milliseconds; a row gives
 * the figure as that ratio too, so a run elsewhere can be read against it.
 */
const ISSUE_NODE_MS = 146 / 6.4;
const root = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
const bin = fileURLToPath(new URL('../bin/loom', import.meta.url));

const median = (values: number[]) =>
  [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)] ?? 0;

/** The script body, also what Claude Code is handed: one instant agent per item. */
const body = (items: number) =>
  `const out = await pipeline(Array.from({ length: ${items} }, (_, i) => i), (item) => agent('item ' + item));\n` +
  'return out.filter(Boolean).length;\n';

/** Milliseconds of one process, which must exit 0. */
function timed(command: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): number {
  const started = performance.now();
  const result = spawnSync(command, args, { env, cwd, encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
  return elapsed;
}

/** Runs `once(items)` for 1 and AGENTS items, RUNS times in turn with `node -e 0`. */
function perAgent(once: (items: number) => number): { perAgentMs: number; node: number } {
  const perAgentTimings: number[] = [];
  const nodeTimings: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    nodeTimings.push(timed(process.execPath, ['-e', '0'], process.env));
    const one = once(1);
    perAgentTimings.push((once(AGENTS) - one) / (AGENTS - 1));
  }
  return { perAgentMs: median(perAgentTimings), node: median(nodeTimings) };
}

function loomRun(folder: string, items: number): number {
  const home = mkdtempSync(join(folder, 'run-'));
  const model = join(home, 'model.json');
  writeFileSync(model, JSON.stringify({ default: { reply: 'ok' } }));
  const script = join(home, 'pipeline.js');
  const meta = `export const meta = { name: 'pipeline', description: '${items} instant agents' };\n`;
  writeFileSync(script, meta + body(items));
  const args = [bin, 'workflow', 'run', script, '--model', `scripted:${model}`, '--json'];
  args.push('--max-concurrent', String(SLOTS), '--max-agents', String(AGENTS));
  return timed(process.execPath, args, { ...process.env, LOOM_HOME: home });
}

/** bench/fake-provider.mjs in workflow mode; resolves with its port and a stop function. */
async function startFakeProvider(scriptFile: string): Promise<{ port: number; stop: () => void }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'fake-provider.mjs')], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, FAKE_WORKFLOW_SCRIPT: scriptFile },
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('utf8').trim())));
    child.once('exit', () => reject(new Error('bench/fake-provider.mjs exited before listening')));
  });
  return { port, stop: () => child.stdin.end() };
}

/** The same pipeline in Claude Code (CLAUDE_BIN): its main model is told to run the script. */
async function claudeCodePerAgent(claude: string, folder: string) {
  const scriptFile = join(folder, 'claude-script.js');
  const fake = await startFakeProvider(scriptFile);
  try {
    return perAgent((items) => {
      // Claude Code's Workflow tool takes only a script that opens with its literal `meta`.
      const meta = `export const meta = { name: 'pipeline', description: '${items} instant agents', phases: [] };\n`;
      writeFileSync(scriptFile, meta + body(items));
      const home = mkdtempSync(join(folder, 'claude-'));
      const env = {
        ...process.env,
        HOME: home,
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${fake.port}`,
        ANTHROPIC_API_KEY: 'bench-key',
        // Claude Code refuses to skip permissions as root unless told it runs in a sandbox.
        IS_SANDBOX: '1',
      };
      const args = ['-p', 'Run the workflow you are given.', '--output-format', 'json'];
      args.push('--permission-mode', 'bypassPermissions');
      return timed(claude, args, env, home);
    });
  } finally {
    fake.stop();
  }
}

export default async function pipelineBench(): Promise<BenchRow[]> {
  const folder = mkdtempSync(join(root, 'loom-bench-pipeline-'));
  try {
    const loom = perAgent((items) => loomRun(folder, items));
    const name = `pipeline: bin/loom workflow run, ${AGENTS} instant agents at ${SLOTS} slots, wall per agent beyond a 1-agent run (median of ${RUNS}, LOOM_HOME in ${root}; node -e 0: ${Math.round(loom.node)} ms)`;
    const rows: BenchRow[] = [
      {
        name,
        value: Math.round(loom.perAgentMs * 1000) / 1000,
        unit: 'ms',
        target: `<= ${TARGET_MS} ms`,
        ok: loom.perAgentMs <= TARGET_MS,
      },
      {
        name: `pipeline: that per-agent wall / node -e 0 of this run (the ${TARGET_MS} ms was ${((TARGET_MS / ISSUE_NODE_MS) * 100).toFixed(1)}% of the ${ISSUE_NODE_MS.toFixed(1)} ms node -e 0 where the issue was measured)`,
        value: Math.round((loom.perAgentMs / loom.node) * 10000) / 100,
        unit: '%',
      },
    ];
    const claude = process.env.CLAUDE_BIN;
    if (!claude) {
      rows.push({
        name: 'pipeline: the same in Claude Code: CLAUDE_BIN not set, skipped',
        value: Number.NaN,
        unit: '',
      });
      return rows;
    }
    const other = await claudeCodePerAgent(claude, folder);
    rows.push({
      name: `pipeline: the same in Claude Code (${claude}, fake Anthropic server), wall per agent (median of ${RUNS})`,
      value: Math.round(other.perAgentMs * 1000) / 1000,
      unit: 'ms',
    });
    // The issue's aim behind the 0.3 ms: an agent 35 times lighter than Claude Code's, on the same machine.
    const lighter = other.perAgentMs / loom.perAgentMs;
    rows.push({
      name: "pipeline: Claude Code's per-agent cost over Loom's, both from this run",
      value: Math.round(lighter * 10) / 10,
      unit: 'x',
      target: `>= ${LIGHTER_THAN_CLAUDE}x`,
      ok: lighter >= LIGHTER_THAN_CLAUDE,
    });
    return rows;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
