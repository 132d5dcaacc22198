/**
 * Loads, at first use and synchronously, a library Loom needs only on some paths: yaml and zod to
 * read a config file, ajv to check tool arguments, acorn to check a workflow script, zod to
 * convert a tool declaration whose JSON Schema was not generated ahead. Run from source or
 * from the unbundled build it is Node's `require`; the command line's build replaces this module
 * with one that requires each library's own bundled chunk, so the library starts from V8's code
 * cache instead of compiling dozens of files (scripts/bundle.mjs, `librariesFromChunks`). Must
 * load nothing but the libraries named here.
 */
import { createRequire } from 'node:module';

export function loadLibrary(name: 'yaml'): typeof import('yaml');
export function loadLibrary(name: 'acorn'): typeof import('acorn');
export function loadLibrary(name: 'ajv'): typeof import('ajv');
export function loadLibrary(name: 'ajv/dist/2020.js'): typeof import('ajv/dist/2020.js');
export function loadLibrary(name: 'zod'): typeof import('zod');
export function loadLibrary(name: string): unknown {
  return createRequire(import.meta.url)(name);
}
