/**
 * Loom's version, read once from package.json (two folders up from src/core, dist/core and
 * dist/bundle alike). Cheap to import: the CLI's `--version` path loads nothing else.
 */
import { readFileSync } from 'node:fs';

const packageFile = new URL('../../package.json', import.meta.url);

export const loomVersion: string = (
  JSON.parse(readFileSync(packageFile, 'utf8')) as { version: string }
).version;
