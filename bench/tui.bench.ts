/**
 * The interactive terminal (issue 12), as a person meets it: the built bin/loom in a real
 * pseudo-terminal (@lydell/node-pty) drawn into a headless xterm (@xterm/headless). Figures: the
 * time from spawn to the first drawn prompt box (drawn before ink loads), and to ink handling
 * keys (a key typed the moment the box shows appears in it), each against `loom --version` and
 * `node -e 0` spawned the same way in the same run (medians, runs interleaved since a shared
 * machine drifts); and
 * keystroke-to-screen latency (a key written to the pty until the xterm shows its effect in the
 * prompt box), idle and while a 200-agent workflow runs in the same loom process. Measures only.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawn } from '@lydell/node-pty';
import { LOOM_BIN } from '../test/cli/loom-process.js';
import { KEYS, type ScreenRun, startScreen } from '../test/tui/pty-screen.js';
import type { BenchRow } from './run.js';

const SPAWN_RUNS = 7;
const AGENTS = 200;
/** Every agent of the workflow runs at once: the heaviest event stream the store can get. */
const CONCURRENT_AGENTS = AGENTS;
/** Each agent's model steps (a `glob` call each) before it answers, and the wait of each. */
const AGENT_STEPS = 40;
const STEP_DELAY_MS = 250;
const IDLE_KEYSTROKES = 100;
const BUSY_KEYSTROKES = 300;
/** Typed letters before the prompt is emptied again with backspaces. */
const WORD_LENGTH = 20;
const PROMPT_IDLE = 'ask loom, / for commands';
const PROMPT_BUSY = 'working… enter steers it';

function median(timings: number[]): number {
  const sorted = [...timings].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function percentile(timings: number[], fraction: number): number {
  const sorted = [...timings].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)] ?? 0;
}

/** From spawning `node ARGS` in a pseudo-terminal to its exit (a zero exit code). */
function ptyExitMilliseconds(args: string[], home: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cols: 100,
    rows: 40,
    cwd: home,
    name: 'xterm-256color',
    env: { ...(process.env as Record<string, string>), LOOM_HOME: home },
  });
  let output = '';
  child.onData((data) => {
    output += data;
  });
  return new Promise((resolve, reject) => {
    child.onExit(({ exitCode }) => {
      if (exitCode === 0) resolve(performance.now() - started);
      else reject(new Error(`node ${args.join(' ')} exited ${exitCode}: ${output}`));
    });
  });
}

/**
 * From spawning the interactive `loom` to the prompt box on the screen (`prompt`), and to a key
 * typed the moment it shows appearing in the box (`ready`: ink reads and draws keys); then
 * Ctrl+D exits it.
 */
async function startMilliseconds(
  model: string,
  home: string,
): Promise<{ prompt: number; ready: number }> {
  const started = performance.now();
  const screen = startScreen(['--model', `scripted:${model}`], { home, cwd: home });
  await screen.waitFor(PROMPT_IDLE);
  const prompt = performance.now() - started;
  screen.type('x');
  await screen.waitFor(/│ > x *│/);
  const ready = performance.now() - started;
  // Exit once the backspace is seen too, so Ctrl+D meets an empty prompt; a lost Ctrl+D fails
  // the bench instead of hanging it.
  screen.type(KEYS.backspace);
  // The empty prompt shows the cursor (a space) before the placeholder.
  await screen.waitFor(new RegExp(`│ > +${escapeRegExp(PROMPT_IDLE)}`));
  screen.type(KEYS.ctrlD);
  await screen.waitFor('resume it with', 10_000);
  const { exitCode } = await screen.exited;
  if (exitCode !== 0) throw new Error(`loom exited ${exitCode}:\n${screen.text()}`);
  return { prompt, ready };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Types `count` keys into the prompt box, one at a time (letters up to WORD_LENGTH, then as many
 * backspaces), each timed from the write to the pty until the box shows the new text; then
 * empties the box (untimed).
 */
async function keystrokeLatencies(
  screen: ScreenRun,
  count: number,
  placeholder: string,
): Promise<number[]> {
  const timings: number[] = [];
  let typed = '';
  let growing = true;
  for (let key = 0; key < count; key++) {
    if (growing && typed.length === WORD_LENGTH) growing = false;
    if (!growing && typed.length === 0) growing = true;
    const letter = String.fromCharCode(97 + (key % 26));
    typed = growing ? typed + letter : typed.slice(0, -1);
    const expected =
      typed.length === 0
        ? new RegExp(`│ > +${escapeRegExp(placeholder)}`)
        : new RegExp(`│ > ${escapeRegExp(typed)} *│`);
    const started = performance.now();
    screen.type(growing ? letter : KEYS.backspace);
    await screen.waitFor(expected, 10_000);
    timings.push(performance.now() - started);
  }
  // One at a time: ink hands keys that arrive together to the prompt as one input.
  while (typed.length > 0) {
    typed = typed.slice(0, -1);
    screen.type(KEYS.backspace);
    await screen.waitFor(
      typed.length === 0
        ? new RegExp(`│ > +${escapeRegExp(placeholder)}`)
        : new RegExp(`│ > ${escapeRegExp(typed)} *│`),
      10_000,
    );
  }
  return timings;
}

function writeModels(home: string): { model: string } {
  const glob = { name: 'glob', arguments: { pattern: '*.json' } };
  const script = [
    "phase('fan out');",
    "const answers = await parallel(args.items.map((item) => () => agent('work ' + item, { label: 'agent ' + item })));",
    'return { count: answers.filter(Boolean).length };',
  ].join('\n');
  const model = join(home, 'model.json');
  writeFileSync(
    model,
    JSON.stringify({
      rules: [
        {
          when: '^run the fleet$',
          steps: [
            {
              tools: [
                {
                  name: 'workflow',
                  arguments: {
                    meta: { name: 'fleet', description: 'many agents at once' },
                    script,
                    args: { items: Array.from({ length: AGENTS }, (_, index) => index + 1) },
                  },
                },
              ],
            },
            { reply: 'fleet done' },
          ],
        },
        {
          when: '^work (\\d+)$',
          steps: [
            ...Array.from({ length: AGENT_STEPS }, () => ({
              tools: [glob],
              delayMs: STEP_DELAY_MS,
            })),
            { reply: 'worked {{1}}' },
          ],
        },
      ],
      default: { reply: 'ok' },
    }),
  );
  writeFileSync(
    join(home, 'config.yaml'),
    `workflow:\n  maxConcurrentAgents: ${CONCURRENT_AGENTS}\n  maxTotalAgents: ${AGENTS}\n`,
  );
  return { model };
}

/**
 * The agents' `glob` searches a workspace of its own, as a user's would: with the workspace
 * inside LOOM_HOME every search would walk the run's thousands of session files.
 */
function writeWorkspace(): string {
  const workspace = mkdtempSync(join(tmpdir(), 'loom-bench-tui-workspace-'));
  for (let index = 0; index < 20; index++) {
    writeFileSync(join(workspace, `file-${index}.json`), '{}\n');
  }
  return workspace;
}

async function latencyRows(model: string, home: string, workspace: string): Promise<BenchRow[]> {
  const screen = startScreen(['--model', `scripted:${model}`], { home, cwd: workspace });
  try {
    await screen.waitFor(PROMPT_IDLE);
    const idle = await keystrokeLatencies(screen, IDLE_KEYSTROKES, PROMPT_IDLE);
    screen.type('run the fleet');
    await screen.waitFor('> run the fleet');
    screen.type(KEYS.enter);
    await screen.waitFor(/\b1 workflows?\b/);
    await screen.waitFor(PROMPT_BUSY);
    const busy = await keystrokeLatencies(screen, BUSY_KEYSTROKES, PROMPT_BUSY);
    if (!/\b1 workflows?\b/.test(screen.text()) || screen.text().includes('fleet done')) {
      throw new Error(
        'the workflow ended before the keystrokes did: raise AGENT_STEPS in bench/tui.bench.ts',
      );
    }
    const row = (name: string, value: number, target?: number): BenchRow => ({
      name,
      value: Math.round(value * 10) / 10,
      unit: 'ms',
      ...(target !== undefined ? { target: `< ${target} ms`, ok: value < target } : {}),
    });
    const during = `while a ${AGENTS}-agent workflow runs (${CONCURRENT_AGENTS} at once, ${BUSY_KEYSTROKES} keys)`;
    return [
      row(`tui: keystroke to screen p50, idle (${IDLE_KEYSTROKES} keys)`, percentile(idle, 0.5)),
      row(`tui: keystroke to screen p99, idle (${IDLE_KEYSTROKES} keys)`, percentile(idle, 0.99)),
      row(`tui: keystroke to screen p50 ${during}`, percentile(busy, 0.5)),
      row(`tui: keystroke to screen p99 ${during}`, percentile(busy, 0.99), 50),
    ];
  } finally {
    screen.kill();
    await screen.exited;
  }
}

export default async function tuiBench(): Promise<BenchRow[]> {
  const home = mkdtempSync(join(tmpdir(), 'loom-bench-tui-'));
  try {
    const { model } = writeModels(home);
    const node: number[] = [];
    const version: number[] = [];
    const prompt: number[] = [];
    const ready: number[] = [];
    for (let run = 0; run < SPAWN_RUNS; run++) {
      node.push(await ptyExitMilliseconds(['-e', '0'], home));
      version.push(await ptyExitMilliseconds([LOOM_BIN, '--version'], home));
      const start = await startMilliseconds(model, home);
      prompt.push(start.prompt);
      ready.push(start.ready);
    }
    const nodeMedian = median(node);
    const versionMedian = median(version);
    const promptMedian = median(prompt);
    const readyMedian = median(ready);
    const spawnRows: BenchRow[] = [
      {
        name: `tui: node -e 0 in a pty, spawn to exit (median of ${SPAWN_RUNS})`,
        value: Math.round(nodeMedian),
        unit: 'ms',
      },
      {
        name: `tui: loom --version in a pty, spawn to exit (median of ${SPAWN_RUNS})`,
        value: Math.round(versionMedian),
        unit: 'ms',
      },
      {
        name: `tui: loom, spawn to the first drawn prompt (median of ${SPAWN_RUNS}): ${Math.round(promptMedian)} ms, / loom --version`,
        value: Math.round((promptMedian / versionMedian) * 100) / 100,
        unit: 'x',
        target: '< 1.5 x',
        ok: promptMedian / versionMedian < 1.5,
      },
      {
        name: `tui: loom, spawn to ink ready (a key typed at the prompt is drawn in it; median of ${SPAWN_RUNS}): ${Math.round(readyMedian)} ms, / loom --version`,
        value: Math.round((readyMedian / versionMedian) * 100) / 100,
        unit: 'x',
      },
    ];
    const workspace = writeWorkspace();
    try {
      return [...spawnRows, ...(await latencyRows(model, home, workspace))];
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
