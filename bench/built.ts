/**
 * Benchmarks measure the built code in dist/ (what `bin/loom` runs), not the TypeScript sources:
 * `importBuilt(path)` imports `dist/PATH`, and fails naming `npm run build` when it is missing.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export async function importBuilt<Module>(path: string): Promise<Module> {
  const url = new URL(`../dist/${path}`, import.meta.url);
  if (!existsSync(fileURLToPath(url))) {
    throw new Error(
      `the benchmarks measure the built code, and dist/${path} is missing: run \`npm run build\` first`,
    );
  }
  return (await import(url.href)) as Module;
}
