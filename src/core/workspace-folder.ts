/**
 * The real path of a workspace folder: absolute, with every symlink resolved, so one folder
 * reached through different links is one workspace. Reads the file system; creates nothing.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/** `folder` resolved against the current folder with its symlinks resolved; as given when absent. */
export function realFolder(folder: string): string {
  const absolute = resolve(folder);
  try {
    return realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}
