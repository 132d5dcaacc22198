// The second half of `npm run build` (after tsc): bundles the command line, the library entries
// and the workflow worker with esbuild into dist/bundle/, so a start reads a few files instead
// of hundreds. The command line is CommonJS chunks (`cli.cjs` and the `cli-chunk-*.cjs` it
// requires) that bin/loom runs with V8's code cache (bin/cached-bundle.js; each chunk's cache is
// trained here on a scripted run, since Node 20 caches no compiled modules of its own): a command
// reads only the chunks it uses. The interactive terminal is the one exception: ink and its
// layout engine use top-level await, which CommonJS cannot hold, so the terminal is an ES module
// entry (`tui.js`) that the command line imports when `loom` opens a session. The library
// entries and `tui.js` share ESM chunks (one copy of every module, so `instanceof` holds across
// `loom` and `loom/testing`); modules loaded with `await import()` stay in their own chunks. The
// workflow worker is one CommonJS file (a thread starts faster without an ESM loader) in the same
// folder: it is found as `./worker.cjs` next to the code that starts it, so a copy of it also goes
// next to tsc's unbundled engine (dist/workflow/), whose runs then start the same thread. tsc still writes
// dist/**/*.d.ts (the types of the package's exports) and the unbundled modules the built-engine
// test imports. Which sources each output holds is written to dist/bundle-meta.json (not
// published), for the test that checks what each command loads, with its paths named under
// `dist/`. Run as `node scripts/bundle.mjs FOLDER` (scripts/build.mjs passes the new build's
// folder; default `dist`), it writes only into FOLDER. It also writes the model catalog's trimmed
// data (model-catalog.json) beside the chunks.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'acorn';
import { build } from 'esbuild';

/** The build's folder: tsc's output, which this completes. */
const distFolder = process.argv[2] ?? 'dist';
const outdir = join(distFolder, 'bundle');

/**
 * zod's `z.locales` (the error messages in 40 languages, 366 KB, half of zod) is never used by
 * Loom; English, the default, is imported by zod's schemas on its own and stays.
 */
const withoutZodLocales = {
  name: 'without-zod-locales',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.c?js$/ }, (args) =>
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
 * The AI SDK's provider-utils builds each request's headers with the global `Headers`, and Node
 * 20's `Headers` is undici: its first use loads undici, about 25 ms of a one-prompt `loom run`
 * against a real provider (the providers' `fetch` is Loom's own, src/llm/node-fetch.ts, for the
 * same reason). Its module gets Loom's small `Headers` (src/llm/light-headers.ts) as a local
 * binding instead, which shadows the global there and nowhere else. The build fails if
 * provider-utils stops using `Headers` as expected, so an upgrade is checked again.
 */
const lightHeaders = {
  name: 'light-headers',
  setup(builder) {
    const file = resolve('src/llm/light-headers.ts');
    builder.onLoad(
      { filter: /[\\/]@ai-sdk[\\/]provider-utils[\\/]dist[\\/]index\.mjs$/ },
      (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (
          !source.includes('new Headers(') ||
          /\b(class|function|var|let|const) Headers\b/.test(source)
        ) {
          throw new Error(
            `light-headers: ${args.path} no longer uses the global Headers as expected`,
          );
        }
        return {
          contents: `import { Headers } from ${JSON.stringify(file)};\n${source}`,
          loader: 'js',
          resolveDir: dirname(args.path),
        };
      },
    );
  },
};

/** What every bundle shares: Node 20 code with source maps, warnings and errors only. */
const COMMON = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  // Loaded from node_modules at first use: sharp (native, a prebuilt binary per platform) at the
  // first image to scale; unpdf (pdf.js, an ES module with top-level await) at the first PDF.
  external: ['sharp', 'unpdf'],
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
 * web_fetch's page libraries (linkedom, Readability, turndown: about 1.4 MB) are needed at the
 * first HTML page, never at start, and Readability's regular expressions hold characters beyond
 * ASCII, which a command-line chunk may not. They are bundled apart, as `web-pages.cjs` (read by
 * Node's own `require`), and src/web/html-markdown.ts's `import('./page-libraries.js')` reaches
 * it through this shim. unpdf (pdf.js, an ES module with top-level await) stays external: it
 * loads from node_modules at the first PDF.
 */
const lazyWebPages = lazyRequire({
  name: 'lazy-web-pages',
  filter: /^\.\/page-libraries\.js$/,
  importer: /[\\/]src[\\/]web[\\/]/,
  file: './web-pages.cjs',
  contents: [
    "const libraries = require('./web-pages.cjs');",
    'export const Readability = libraries.Readability;',
    'export const parseHTML = libraries.parseHTML;',
    'export const TurndownService = libraries.TurndownService;',
  ].join('\n'),
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

/**
 * The command line reaches the interactive terminal through this shim: the ES module entry
 * `tui.js` (next to it in dist/bundle/) is imported when `loom` opens a session, never before.
 * The command line's own dynamic imports become `require` calls of its chunks (see
 * `commandLineChunks`), so this one goes through `loomImportModule`, a real `import()` that
 * bin/cached-bundle.js gives every chunk.
 */
const terminalFromEsm = {
  name: 'terminal-from-esm',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/tui\/tui-command\.js$/ }, (args) =>
      /[\\/]src[\\/]cli[\\/]main\.ts$/.test(args.importer)
        ? { path: 'tui-command', namespace: 'loom-terminal' }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'loom-terminal' }, () => ({
      contents: [
        'export async function tuiCommand(options) {',
        "  const terminal = await loomImportModule(new URL('./tui.js', import.meta.url).href);",
        '  return terminal.tuiCommand(options);',
        '}',
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/** The libraries src/core/load-library.ts loads, each bundled as a chunk of its own. */
const LIBRARY_CHUNKS = {
  yaml: 'cli-library-yaml.cjs',
  acorn: 'cli-library-acorn.cjs',
  ajv: 'cli-library-ajv.cjs',
  'ajv/dist/2020.js': 'cli-library-ajv2020.cjs',
  zod: 'cli-library-zod.cjs',
};

/**
 * In the command line's build, src/core/load-library.ts requires each library's chunk: the
 * chunk's `require` is bin/cached-bundle.js's, so the library runs with its code cache.
 */
const librariesFromChunks = {
  name: 'libraries-from-chunks',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]src[\\/]core[\\/]load-library\.ts$/ }, () => ({
      contents: [
        `const chunks = ${JSON.stringify(Object.fromEntries(Object.entries(LIBRARY_CHUNKS).map(([name, file]) => [name, `./${file}`])))};`,
        'export function loadLibrary(name) {',
        '  const chunk = chunks[name];',
        "  if (chunk === undefined) throw new Error('loadLibrary: ' + name + ' has no chunk');",
        '  return require(chunk);',
        '}',
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/** Each library of LIBRARY_CHUNKS as one CommonJS file: `module.exports` is the library's. */
function libraryChunks() {
  return Promise.all(
    Object.entries(LIBRARY_CHUNKS).map(async ([name, file]) => {
      const outfile = join(outdir, file);
      const built = await build({
        stdin: {
          contents: `module.exports = require(${JSON.stringify(name)});`,
          resolveDir: '.',
          loader: 'js',
        },
        outfile,
        metafile: true,
        format: 'cjs',
        ...COMMON,
        plugins: [withoutZodLocales],
      });
      writeFileSync(outfile, asciiComments(readFileSync(outfile, 'utf8'), outfile));
      return built.metafile;
    }),
  );
}

/**
 * The command line as CommonJS chunks: `cli.cjs` (the commands, commander) and `cli-chunk-*.cjs`,
 * which bin/cached-bundle.js loads at first `require`, each with its own code cache, so
 * `loom --version` reads one small file and `loom run` only what a run uses. esbuild splits only
 * ES modules, so the command line is first bundled as ESM chunks and each chunk then converted
 * to CommonJS in place (dynamic imports of chunks become `require`). `import.meta.url` becomes
 * the chunk's own file URL: chunks sit in dist/bundle/ like every other bundle file, so paths
 * relative to it (package.json, bin/loom, worker.cjs) hold. The loader reads chunks as latin1, a
 * straight copy of the bytes, so they must be ASCII: esbuild escapes every string, template and
 * identifier but keeps comments as written, so characters beyond ASCII in a comment become `?`
 * (one per UTF-16 unit: source-map columns stay right); one anywhere else fails the build.
 */
async function commandLineChunks() {
  const split = await build({
    entryPoints: { cli: 'src/cli/main.ts' },
    outdir,
    metafile: true,
    splitting: true,
    format: 'esm',
    chunkNames: 'cli-chunk-[hash]',
    outExtension: { '.js': '.cjs' },
    ...COMMON,
    plugins: [withoutZodLocales, terminalFromEsm, librariesFromChunks, lightHeaders, lazyWebPages],
    define: {
      'process.env.NODE_ENV': '"production"',
      'import.meta.url': 'loomBundleUrl',
      // Reached only when the source is TypeScript (under tsx), never from a chunk.
      'import.meta.resolve': 'loomBundleResolve',
    },
  });
  const files = Object.keys(split.metafile.outputs).filter((file) => file.endsWith('.cjs'));
  await build({
    entryPoints: files,
    outdir,
    outbase: outdir,
    allowOverwrite: true,
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
    supported: { 'dynamic-import': false },
    banner: {
      js: [
        "const loomBundleUrl = require('node:url').pathToFileURL(__filename).href;",
        'const loomBundleResolve = (specifier) => require.resolve(specifier);',
      ].join('\n'),
    },
  });
  for (const file of files) writeFileSync(file, asciiComments(readFileSync(file, 'utf8'), file));
  return split;
}

/** One UTF-16 unit above U+007F (no `u` flag: an astral character is two units, two matches). */
const BEYOND_ASCII = /[\u0080-\uffff]/g;

function asciiComments(source, file) {
  const comments = [];
  parse(source, { ecmaVersion: 'latest', sourceType: 'script', onComment: comments });
  let text = '';
  let from = 0;
  for (const { start, end } of comments) {
    text +=
      checkAscii(source, from, start, file) + source.slice(start, end).replace(BEYOND_ASCII, '?');
    from = end;
  }
  return text + checkAscii(source, from, source.length, file);
}

function checkAscii(source, start, end, file) {
  const code = source.slice(start, end);
  const outside = code.search(BEYOND_ASCII);
  if (outside >= 0) {
    throw new Error(`${file}: a character beyond ASCII outside a comment, at ${start + outside}`);
  }
  return code;
}

/**
 * Trains the chunks' caches: one scripted `loom run`, with a config file, whose model starts a
 * one-agent workflow, so the caches hold what `loom run`, reading config (yaml), the agent loop,
 * the tool pipeline (ajv) and the workflow host (acorn) compile. A failed training leaves no cache (starts are slower, never wrong) and fails the build.
 */
/** `node -e` code that runs this build's command line as bin/loom runs the current one. */
const RUN_THIS_BUILD = `require(${JSON.stringify(resolve('bin/cached-bundle.js'))}).loadCachedBundle(${JSON.stringify(resolve(outdir, 'cli.cjs'))}).main([process.argv[0], 'loom', ...process.argv.slice(1)]);`;

function trainCodeCache() {
  const home = mkdtempSync(join(tmpdir(), 'loom-code-cache-'));
  try {
    const model = join(home, 'model.json');
    const script = "return await agent('hello');";
    const workflow = {
      name: 'workflow',
      arguments: { meta: { name: 'train', description: 'one agent' }, script },
    };
    writeFileSync(
      model,
      JSON.stringify({
        rules: [{ when: '^train$', steps: [{ tools: [workflow] }, { reply: 'trained' }] }],
        default: { reply: 'ok' },
      }),
    );
    writeFileSync(join(home, 'config.yaml'), 'agent:\n  maxSteps: 5\n');
    const scriptFile = join(home, 'train.js');
    writeFileSync(
      scriptFile,
      `export const meta = { name: 'train', description: 'one agent' };\n${script}\n`,
    );
    // A turn without a workflow first (the chunks it loads late keep their plain cache), then a
    // workflow command and a turn that starts one: a chunk loaded after a workflow tuned V8
    // keeps a cache of its own (see bin/cached-bundle.js), so each run trains what it loads.
    const runs = [
      { args: ['run', '--model', `scripted:${model}`, '--cwd', home, 'hello'], says: 'ok' },
      { args: ['workflow', 'run', scriptFile, '--model', `scripted:${model}`], says: 'ok' },
      { args: ['run', '--model', `scripted:${model}`, '--cwd', home, 'train'], says: 'trained' },
    ];
    for (const { args, says } of runs) {
      // bin/loom runs the build `dist` points to; this one is not swapped in yet.
      const run = spawnSync(process.execPath, ['-e', RUN_THIS_BUILD, ...args], {
        cwd: home,
        env: { ...process.env, LOOM_HOME: home, LOOM_WRITE_CODE_CACHE: '1' },
        encoding: 'utf8',
      });
      if (run.status !== 0 || !run.stdout.includes(says)) {
        throw new Error(
          `training the code cache failed (${run.status}): ${run.stderr}${run.stdout}`,
        );
      }
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
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
    tui: 'src/tui/tui-command.ts',
    index: 'src/index.ts',
    testing: 'src/testing/index.ts',
  },
  outdir,
  metafile: true,
  splitting: true,
  format: 'esm',
  chunkNames: 'chunk-[hash]',
  ...COMMON,
  plugins: [withoutZodLocales, yogaWithoutFetch, lazyMarkdown, lightHeaders],
  // React and its reconciler pick their production builds (the development ones are slower).
  define: { 'process.env.NODE_ENV': '"production"' },
  // ink imports it only when DEV is set, for React DevTools; Loom never ships it.
  external: ['react-devtools-core', ...COMMON.external],
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
// The QuickJS threads (the isolated engine's worker, Code Mode's program thread): QuickJS (its
// WebAssembly file beside its code) loads at run time from node_modules, a dependency like any
// other, so the package is external here, and `import.meta.url` is the file's own URL (a thread
// that was handed no compiled module finds QuickJS's WebAssembly file from there).
const QUICKJS_THREAD = {
  format: 'cjs',
  ...COMMON,
  external: ['quickjs-emscripten', ...COMMON.external],
  define: { 'import.meta.url': 'loomBundleUrl' },
  banner: { js: "const loomBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
};
await build({
  entryPoints: ['src/workflow/isolated/worker.ts'],
  outfile: join(outdir, 'isolated-worker.cjs'),
  ...QUICKJS_THREAD,
});
await build({
  entryPoints: ['src/code-mode/program-worker.ts'],
  outfile: join(outdir, 'program-worker.cjs'),
  ...QUICKJS_THREAD,
});
// The workers need only Node's own modules (and QuickJS from node_modules), so each file serves
// the unbundled engine too.
for (const file of [
  'worker.cjs',
  'worker.cjs.map',
  'isolated-worker.cjs',
  'isolated-worker.cjs.map',
])
  copyFileSync(join(outdir, file), join(distFolder, 'workflow', file));
for (const file of ['program-worker.cjs', 'program-worker.cjs.map'])
  copyFileSync(join(outdir, file), join(distFolder, 'code-mode', file));
// The sandbox's proxy bridge is plain JavaScript that node runs inside bwrap, outside any bundle:
// it is copied as it is, beside the chunks and beside tsc's src/sandbox modules, which find it
// as `./proxy-bridge.mjs` next to themselves (src/sandbox/sandbox-network.ts).
for (const folder of [outdir, join(distFolder, 'sandbox')])
  copyFileSync('src/sandbox/proxy-bridge.mjs', join(folder, 'proxy-bridge.mjs'));
const markdown = await lazyFile(
  'markdown',
  "export { Marked } from 'marked';\nexport { markedTerminal } from 'marked-terminal';",
  [lazyHighlight],
);
const highlight = await lazyFile('highlight', "export { highlight } from 'cli-highlight';");
const webPages = await lazyFile(
  'web-pages',
  "export { Readability } from '@mozilla/readability';\nexport { parseHTML } from 'linkedom';\nexport { default as TurndownService } from 'turndown';",
);
const commandLine = await commandLineChunks();
const libraries = await libraryChunks();
// The model catalog's data, trimmed to the fields Loom uses by tsc's build of the module that
// reads it (src/context/catalog-data.ts), which finds it beside the bundled chunks at the first
// lookup instead of loading the whole models.dev package.
const catalogData = await import(
  pathToFileURL(resolve(distFolder, 'context', 'catalog-data.js')).href
);
writeFileSync(
  join(outdir, catalogData.CATALOG_FILE),
  JSON.stringify(catalogData.trimmedPackageCatalog()),
);
const metafiles = [
  result.metafile,
  commandLine.metafile,
  ...libraries,
  markdown.metafile,
  highlight.metafile,
  webPages.metafile,
];
/** An output's path as `dist/…`, whichever folder this build is written to. */
const underDist = (outputs) =>
  Object.fromEntries(
    Object.entries(outputs).map(([path, output]) => [
      path.startsWith(`${distFolder}/`) ? `dist/${path.slice(distFolder.length + 1)}` : path,
      output,
    ]),
  );
writeFileSync(
  join(distFolder, 'bundle-meta.json'),
  JSON.stringify({
    inputs: Object.assign({}, ...metafiles.map((metafile) => metafile.inputs)),
    outputs: underDist(Object.assign({}, ...metafiles.map((metafile) => metafile.outputs))),
  }),
);
trainCodeCache();
