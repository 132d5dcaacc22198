/**
 * The sandbox's own cost (issue 34): one `bash` call `true` through the built tool, unconfined and
 * under the sandbox (bubblewrap with the default `workspace-write` plan, in a git workspace), the
 * median of many calls each, in one process, and the difference. Target: under 15 ms added.
 * Then the same under `sandbox.allowedHosts`: what the proxy's bridge (node, started inside the
 * sandbox before the command) adds on top. Measures only; without bwrap it reports nothing for
 * the sandboxed rows.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Context as ContextType } from '../src/core/context.js';
import type { ToolDefinition, ToolExecution } from '../src/core/tool-contract.js';
import { importBuilt } from './built.js';
import type { BenchRow } from './run.js';

const CALLS = 40;

function median(timings: number[]): number {
  const sorted = [...timings].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export default async function sandboxBench(): Promise<BenchRow[]> {
  const { Context } = await importBuilt<{ Context: typeof ContextType }>('core/context.js');
  const { bashTool } = await importBuilt<typeof import('../src/tools/bash.js')>('tools/bash.js');
  const { commandSandboxKey } = await importBuilt<typeof import('../src/tools/command-sandbox.js')>(
    'tools/command-sandbox.js',
  );
  const { Sandbox } = await importBuilt<typeof import('../src/sandbox/command-sandbox.js')>(
    'sandbox/command-sandbox.js',
  );
  const { DEFAULT_SANDBOX_SETTINGS } =
    await importBuilt<typeof import('../src/sandbox/contract.js')>('sandbox/contract.js');
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'loom-bench-sandbox-')));
  const loomHome = realpathSync(mkdtempSync(join(tmpdir(), 'loom-bench-sandbox-home-')));
  try {
    execFileSync('git', ['init', '-q', workspace]);
    const tool: ToolDefinition = bashTool({ workspace: { root: workspace, extraRoots: [] } });
    const execution = (context: ContextType): ToolExecution => ({
      callId: 'call-1',
      name: 'bash',
      arguments: { command: 'true' },
      signal: new AbortController().signal,
      context,
      agentId: 'agent-1',
      turnId: 'turn-1',
      concludeTurn() {},
      token: Object.freeze({}),
    });
    const plain = new Context();
    const sandboxed = new Context();
    sandboxed.provide(
      commandSandboxKey,
      new Sandbox({ settings: DEFAULT_SANDBOX_SETTINGS, loomHome }),
    );
    const proxied = new Context();
    const proxySandbox = new Sandbox({
      settings: { ...DEFAULT_SANDBOX_SETTINGS, allowedHosts: ['127.0.0.1:1'] },
      loomHome,
    });
    proxied.provide(commandSandboxKey, proxySandbox);
    const time = async (context: ContextType): Promise<number | undefined> => {
      const timings: number[] = [];
      for (let call = 0; call < CALLS; call++) {
        const started = performance.now();
        const output = await tool.execute({ command: 'true' }, execution(context));
        timings.push(performance.now() - started);
        const content = typeof output === 'string' ? output : output.content;
        if (!content.endsWith('[exit code: 0]')) return undefined;
      }
      return median(timings);
    };
    const unconfined = (await time(plain)) ?? 0;
    const confined = await time(sandboxed);
    const rows: BenchRow[] = [
      { name: 'sandbox: bash `true`, unconfined', value: unconfined, unit: 'ms' },
    ];
    if (confined === undefined) return rows;
    const added = confined - unconfined;
    rows.push(
      { name: 'sandbox: bash `true`, under bubblewrap', value: confined, unit: 'ms' },
      {
        name: 'sandbox: added per command',
        value: added,
        unit: 'ms',
        target: '< 15 ms',
        ok: added < 15,
      },
    );
    const withProxy = await time(proxied);
    await proxySandbox.dispose();
    if (withProxy === undefined) return rows;
    rows.push(
      { name: 'sandbox: bash `true`, with allowedHosts (proxy)', value: withProxy, unit: 'ms' },
      { name: 'sandbox: added by the proxy bridge', value: withProxy - confined, unit: 'ms' },
    );
    return rows;
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(loomHome, { recursive: true, force: true });
  }
}
