/**
 * Writes a tree of files under a folder from a `{ 'relative/path': content }` map, creating the
 * folders on the way. Never writes outside `root`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export function writeTree(root: string, files: Record<string, string | Buffer>): string[] {
  return Object.entries(files).map(([path, content]) => {
    const absolute = join(root, path);
    if (relative(root, absolute).startsWith('..')) throw new Error(`${path} leaves ${root}`);
    mkdirSync(dirname(absolute), { recursive: true });
    writeFileSync(absolute, content);
    return absolute;
  });
}
