/**
 * Checkpoints' cost (issue 34, SPEC §11): a workspace of 10,000 files (100 folders of 100), its
 * first snapshot into a fresh shadow repository (git init, every file hashed), then snapshots
 * after one file changed (the median of many), through the built `ShadowRepository` — what the
 * checkpoint layer runs before a step's first file-changing call. Target: under 200 ms for one
 * change. Measures only.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { importBuilt } from './built.js';
import type { BenchRow } from './run.js';

const FOLDERS = 100;
const FILES_PER_FOLDER = 100;
const CHANGES = 15;

function median(timings: number[]): number {
  const sorted = [...timings].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export default async function checkpointBench(): Promise<BenchRow[]> {
  const { ShadowRepository } = await importBuilt<
    typeof import('../src/checkpoint/shadow-repository.js')
  >('checkpoint/shadow-repository.js');
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'loom-bench-checkpoint-')));
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'loom-bench-checkpoint-home-')));
  try {
    for (let folder = 0; folder < FOLDERS; folder++) {
      mkdirSync(join(workspace, `folder-${folder}`));
      for (let file = 0; file < FILES_PER_FOLDER; file++) {
        writeFileSync(
          join(workspace, `folder-${folder}`, `file-${file}.ts`),
          `export const value${folder}_${file} = ${folder * FILES_PER_FOLDER + file};\n`.repeat(8),
        );
      }
    }
    const repository = new ShadowRepository(home, workspace);
    let started = performance.now();
    await repository.snapshot();
    const first = performance.now() - started;
    started = performance.now();
    await repository.snapshot();
    const unchanged = performance.now() - started;
    const timings: number[] = [];
    for (let change = 0; change < CHANGES; change++) {
      writeFileSync(
        join(workspace, `folder-${change}`, 'file-0.ts'),
        `export const changed = ${change};\n`,
      );
      started = performance.now();
      await repository.snapshot();
      timings.push(performance.now() - started);
    }
    const oneChange = median(timings);
    return [
      { name: 'checkpoint: first snapshot, 10,000 files', value: first, unit: 'ms' },
      { name: 'checkpoint: snapshot, nothing changed', value: unchanged, unit: 'ms' },
      {
        name: 'checkpoint: snapshot after one change, 10,000 files',
        value: oneChange,
        unit: 'ms',
        target: '< 200 ms',
        ok: oneChange < 200,
      },
    ];
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}
