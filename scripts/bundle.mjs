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

/** What every bundle shares: Node 20 code with source maps, warnings and errors only. */
const COMMON = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
};

/**
 * The Markdown libraries (marked, marked-terminal and what they import, half a megabyte) are
 * needed at the first Markdown the terminal draws, not at its start. They are bundled apart, as
 * `markdown.cjs`, and the terminal's code reaches them through this shim, which loads that file
 * with a synchronous `require` on the first call: rendering stays synchronous, and the
 * terminal's first chunk is smaller to read and compile.
 */
const lazyMarkdown = lazyRequire({
  name: 'lazy-markdown',
  filter: /^marked(-terminal)?$/,
  importer: /[\\/]src[\\/]tui[\\/]/,
  file: './markdown.cjs',
  contents: [
    'let libraries;',
    "const load = () => (libraries ??= require('./markdown.cjs'));",
    // Called with `new`: a constructor that returns an object makes that object the result.
    'export function Marked(...options) { return new (load().Marked)(...options); }',
    'export function markedTerminal(...options) { return load().markedTerminal(...options); }',
  ].join('\n'),
});

/**
 * marked-terminal imports cli-highlight, which registers every highlight.js language as it
 * loads (1.8 MB of code, about 50 ms). It is bundled apart again, as `highlight.cjs`, and
 * loaded at the first code block.
 */
const lazyHighlight = lazyRequire({
  name: 'lazy-cli-highlight',
  filter: /^cli-highlight$/,
  importer: /[\\/]node_modules[\\/]marked-terminal[\\/]/,
  file: './highlight.cjs',
  contents:
    "export function highlight(code, options) { return require('./highlight.cjs').highlight(code, options); }",
});

/**
 * An esbuild plugin: imports matching `filter` from a file matching `importer` resolve to a shim
 * module (`contents`) that requires `file`, a bundle of its own next to this one, at first use.
 */
function lazyRequire({ name, filter, importer, file, contents }) {
  const namespace = `loom-${name}`;
  const fileFilter = new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
  return {
    name,
    setup(builder) {
      builder.onResolve({ filter }, (args) =>
        importer.test(args.importer) ? { path: name, namespace } : undefined,
      );
      builder.onResolve({ filter: fileFilter, namespace }, (args) => ({
        path: args.path,
        external: true,
      }));
      builder.onLoad({ filter: /.*/, namespace }, () => ({ contents, loader: 'js' }));
    },
  };
}

/** A CommonJS file of dist/bundle/ holding `source` (an ES module's text) and what it imports. */
function lazyFile(name, source, plugins = []) {
  return build({
    stdin: { contents: source, resolveDir: '.', loader: 'js', sourcefile: `${name}-entry.js` },
    outfile: join(outdir, `${name}.cjs`),
    metafile: true,
    format: 'cjs',
    ...COMMON,
    plugins,
  });
}

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: {
    loom: 'src/cli/main.ts',
    index: 'src/index.ts',
    testing: 'src/testing/index.ts',
  },
  outdir,
  metafile: true,
  splitting: true,
  format: 'esm',
  chunkNames: 'chunk-[hash]',
  ...COMMON,
  plugins: [withoutZodLocales, yogaWithoutFetch, lazyMarkdown],
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
  format: 'cjs',
  ...COMMON,
});
const markdown = await lazyFile(
  'markdown',
  "export { Marked } from 'marked';\nexport { markedTerminal } from 'marked-terminal';",
  [lazyHighlight],
);
const highlight = await lazyFile('highlight', "export { highlight } from 'cli-highlight';");
const metafiles = [result.metafile, markdown.metafile, highlight.metafile];
writeFileSync(
  'dist/bundle-meta.json',
  JSON.stringify({
    inputs: Object.assign({}, ...metafiles.map((metafile) => metafile.inputs)),
    outputs: Object.assign({}, ...metafiles.map((metafile) => metafile.outputs)),
  }),
);
