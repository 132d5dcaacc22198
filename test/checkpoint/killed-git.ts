/**
 * Kills a checkpoint at a known point, by no timing: the child (`fixtures/checkpoint-child.ts`)
 * runs with a `git` on PATH that, at one subcommand, does that command's work on a copy of the
 * index (the work tree changes, the index does not), leaves an `index.lock` behind, does
 * `damage` in the work tree (what a git killed half-way may leave), says so on a FIFO, and waits.
 * The test then kills the child's process group with SIGKILL, as `kill -9` would. Test-only.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { temporaryFolder } from '../helpers/temporary-folder.js';

export interface KilledOperation {
  /** Resolves once the child was killed inside `subcommand`; rejects if it ended before. */
  killed: Promise<void>;
}

export function killInside(
  subcommand: 'add' | 'read-tree',
  args: string[],
  damage = ':',
): KilledOperation {
  const bin = temporaryFolder('loom-fake-git-');
  const fifo = join(bin, 'inside');
  execFileSync('mkfifo', [fifo]);
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh
sub=; skip=
for argument in "$@"; do
  if [ -n "$skip" ]; then skip=; continue; fi
  case "$argument" in -c) skip=1 ;; *) sub=$argument; break ;; esac
done
if [ "$sub" = ${subcommand} ]; then
  cp "$GIT_INDEX_FILE" "$GIT_INDEX_FILE.copy"
  GIT_INDEX_FILE="$GIT_INDEX_FILE.copy" ${real} "$@" || exit 1
  rm -f "$GIT_INDEX_FILE.copy"
  printf 'half an index' > "$GIT_INDEX_FILE.lock"
  ${damage}
  echo inside > ${fifo}
  exec sleep 3600
fi
exec ${real} "$@"
`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/checkpoint/fixtures/checkpoint-child.ts', ...args],
    {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const inside = (async () => {
    const reader = await open(fifo, 'r');
    try {
      return (await reader.readFile('utf8')).trim();
    } finally {
      await reader.close();
    }
  })();
  const killed = Promise.race([
    inside.then(() => 'inside' as const),
    exited.then(() => 'ended' as const),
  ]).then(async (what) => {
    if (what === 'ended') {
      // Unblock the FIFO's reader, then report how the child ended.
      writeFileSync(fifo, 'ended\n');
      await inside;
      throw new Error(`the checkpoint child ended before ${subcommand}: ${output}`);
    }
    process.kill(-(child.pid ?? 0), 'SIGKILL');
    await exited;
  });
  return { killed };
}
