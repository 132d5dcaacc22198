/**
 * The whole state of a folder for byte-for-byte comparisons in checkpoint tests: every path
 * under it (files with their bytes and exec bit, folders, symbolic links with their targets),
 * never following a link. Test-only.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

export type StateEntry =
  | { kind: 'file'; executable: boolean; bytes: string }
  | { kind: 'folder' }
  | { kind: 'link'; target: string };

/** Each path under `root` (relative, `/`-separated), leaving out the names in `skip` at the top. */
export function folderState(
  root: string,
  skip: readonly string[] = ['.git'],
): Record<string, StateEntry> {
  const state: Record<string, StateEntry> = {};
  const visit = (relative: string) => {
    const names = readdirSync(relative === '' ? root : join(root, relative)).sort();
    for (const name of names) {
      if (relative === '' && skip.includes(name)) continue;
      const path = relative === '' ? name : `${relative}/${name}`;
      const absolute = join(root, path);
      const status = lstatSync(absolute);
      if (status.isSymbolicLink()) {
        state[path] = { kind: 'link', target: readlinkSync(absolute) };
      } else if (status.isDirectory()) {
        state[path] = { kind: 'folder' };
        visit(path);
      } else {
        state[path] = {
          kind: 'file',
          executable: (status.mode & 0o100) !== 0,
          bytes: readFileSync(absolute).toString('base64'),
        };
      }
    }
  };
  visit('');
  return state;
}

/** `printf` arguments that write every byte value 0..255 (`reversed`: 255..0), as octal escapes. */
export function allBytesPrintf(reversed = false): string {
  const values = Array.from({ length: 256 }, (_, index) => (reversed ? 255 - index : index));
  return `printf '${values.map((value) => `\\${value.toString(8).padStart(3, '0')}`).join('')}'`;
}

/** `MODE PATH` of each entry of `tree` in the shadow repository at `gitDir`, as git lists them. */
export function treeEntries(gitDir: string, tree: string): string[] {
  return execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-z', tree], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
    },
    encoding: 'utf8',
  })
    .split('\0')
    .filter((line) => line !== '')
    .map((line) => {
      const [meta = '', path = ''] = line.split('\t');
      return `${meta.split(' ')[0]} ${path}`;
    });
}
