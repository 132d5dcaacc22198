/**
 * Loom's version, read once from package.json (two folders up from both src/core and dist/core).
 * Cheap to import: the CLI's `--version` path loads nothing else.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const loomVersion: string = (require('../../package.json') as { version: string }).version;
