/**
 * Agent loop overhead: one long turn over the scripted model where every step calls a no-op
 * tool, so the figure is what the loop itself (prompt assembly, logging, message derivation,
 * tool pipeline) costs per step. Measures only; never asserts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createAgent } from '../src/core/create-agent.js';
import type { ToolDefinition } from '../src/core/tool-contract.js';
import { createScriptedModel } from '../src/llm/scripted-model.js';
import type { BenchRow } from './run.js';

const STEPS = 500;

const noop: ToolDefinition = {
  name: 'noop',
  description: 'Does nothing.',
  parameters: { type: 'object', properties: { step: { type: 'number' } } },
  concurrencySafe: true,
  execute: () => 'ok',
};

async function millisecondsPerStep(steps: number): Promise<number> {
  const home = mkdtempSync(join(tmpdir(), 'loom-bench-loop-'));
  try {
    const model = createScriptedModel(
      {
        rules: [
          {
            when: 'loop',
            steps: [
              ...Array.from({ length: steps - 1 }, (_, step) => ({
                tools: [{ name: 'noop', arguments: { step } }],
              })),
              { reply: 'done' },
            ],
          },
        ],
      },
      { name: 'bench', recordCalls: false },
    );
    const handle = createAgent({
      home,
      model,
      cwd: home,
      tools: [noop],
      limits: { maxSteps: steps },
    });
    const started = performance.now();
    const outcome = await handle.agent.prompt('loop');
    const elapsed = performance.now() - started;
    handle.close();
    if (outcome.reason !== 'completed' || outcome.steps !== steps) {
      throw new Error(`the bench turn ended ${outcome.reason} after ${outcome.steps} steps`);
    }
    return elapsed / steps;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

export default async function agentLoopBench(): Promise<BenchRow[]> {
  await millisecondsPerStep(20);
  const perStep = await millisecondsPerStep(STEPS);
  return [
    {
      name: `agent loop: overhead per scripted step (${STEPS}-step turn)`,
      value: perStep,
      unit: 'ms',
      target: '< 1 ms',
      ok: perStep < 1,
    },
  ];
}
