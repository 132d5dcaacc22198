// The second half of `npm run build` (after tsc): bundles the command line, the library entries
// and the workflow worker with esbuild into dist/bundle/, so a start reads a few files instead
// of hundreds. Entries share chunks (one copy of every module, so `instanceof` holds across
// `loom` and `loom/testing`), and modules loaded with `await import()` stay in their own chunks,
// loaded only on the paths that use them. The workflow worker is one CommonJS file (a thread
// starts faster without an ESM loader) in the same folder: it is found as `./worker.cjs` next
// to the chunk that starts it. tsc still writes dist/**/*.d.ts (the types
// of the package's exports) and the unbundled modules the built-engine test imports. Which
// sources each output holds is written to dist/bundle-meta.json (not published), for the test
// that checks what each command loads.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const outdir = 'dist/bundle';

/**
 * zod's `z.locales` (the error messages in 40 languages, 366 KB, half of zod) is never used by
 * Loom; English, the default, is imported by zod's schemas on its own and stays.
 */
const withoutZodLocales = {
  name: 'without-zod-locales',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: 'zod-locales', namespace: 'loom-unused' }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'loom-unused' }, () => ({
      contents: 'export {};',
      loader: 'js',
    }));
  },
};

/**
 * yoga-layout (ink's layout engine) embeds its WebAssembly as a data URL and reads it with
 * `fetch` when fetch exists: touching Node's `fetch` loads undici, about 40 ms of the terminal's
 * start. Without `fetch` it decodes the same bytes synchronously, so its checks read "no fetch".
 * The build fails if yoga's code changes shape, so an upgrade is checked again.
 */
const yogaWithoutFetch = {
  name: 'yoga-without-fetch',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/].*\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const check = '"function"!=typeof fetch';
      if (!source.includes(check)) {
        throw new Error(`yoga-without-fetch: ${args.path} no longer checks for fetch as expected`);
      }
      return { contents: source.replaceAll(check, '!0'), loader: 'js' };
    });
  },
};

/**
 * marked-terminal imports cli-highlight, which registers every highlight.js language as it
 * loads (about 50 ms of the terminal's start). This shim loads it at the first code block:
 * esbuild evaluates a bundled CommonJS module only when `require` first runs.
 */
const lazyHighlight = {
  name: 'lazy-cli-highlight',
  setup(builder) {
    builder.onResolve({ filter: /^cli-highlight$/ }, (args) =>
      /[\\/]node_modules[\\/]marked-terminal[\\/]/.test(args.importer)
        ? { path: 'cli-highlight', namespace: 'loom-lazy', pluginData: args.resolveDir }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'loom-lazy' }, (args) => ({
      contents:
        "export function highlight(code, options) { return require('cli-highlight').highlight(code, options); }",
      loader: 'js',
      resolveDir: args.pluginData,
    }));
  },
};

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: {
    loom: 'src/cli/main.ts',
    index: 'src/index.ts',
    testing: 'src/testing/index.ts',
  },
  outdir,
  metafile: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [withoutZodLocales, yogaWithoutFetch, lazyHighlight],
  // React and its reconciler pick their production builds (the development ones are slower).
  define: { 'process.env.NODE_ENV': '"production"' },
  // ink imports it only when DEV is set, for React DevTools; Loom never ships it.
  external: ['react-devtools-core'],
  // Bundled CommonJS dependencies call `require` for Node's own modules: give them one.
  banner: {
    js: "import { createRequire as loomBundleRequire } from 'node:module';\nconst require = loomBundleRequire(import.meta.url);",
  },
});
await build({
  entryPoints: ['src/workflow/worker.ts'],
  outfile: join(outdir, 'worker.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});
writeFileSync('dist/bundle-meta.json', JSON.stringify(result.metafile));
