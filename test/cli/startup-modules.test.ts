/**
 * What each command loads as it starts (issue 14): the built bin/loom runs from the esbuild
 * bundle, and heavy modules load only on the paths that use them. A preload traces every module
 * the process loads (ESM through loader hooks that append each URL to a file synchronously,
 * CommonJS from `require.cache` at exit); dist/bundle-meta.json maps each bundle file to the
 * sources it holds. The interactive terminal draws its first frame from small modules and loads
 * the Markdown libraries at its first Markdown. Figures are the bench's business
 * (bench/cli.bench.ts, bench/tui.bench.ts); this pins the shape.
 */
import assert from 'node:assert/strict';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pdfWith } from '../helpers/pdf-file.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { KEYS, startScreen } from '../tui/pty-screen.js';
import { scriptedFolders, startLoom, writeScriptedModel } from './loom-process.js';

const root = resolve('.');
/** The build `dist` links to (scripts/build.mjs): bin/loom loads from there, named `dist/` here. */
const built = realpathSync('dist');
const bundleMeta = JSON.parse(readFileSync('dist/bundle-meta.json', 'utf8')) as {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
};

/** Appends every loaded URL to $LOOM_TEST_MODULE_TRACE before the module is read. */
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, nextLoad) {
  appendFileSync(process.env.LOOM_TEST_MODULE_TRACE, url + '\\n');
  return nextLoad(url, context);
}
`;

function preload(hooks: string): string {
  return `import { appendFileSync } from 'node:fs';
import fs from 'node:fs';
import { createRequire, register } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooks).href)});
// bin/cached-bundle.js opens the command line's chunks itself: its opens are traced too.
const openSync = fs.openSync;
fs.openSync = (path, ...rest) => {
  if (String(path).endsWith('.cjs')) appendFileSync(process.env.LOOM_TEST_MODULE_TRACE, path + '\\n');
  return openSync(path, ...rest);
};
process.on('exit', () => {
  const cached = Object.keys(createRequire(import.meta.url).cache);
  if (cached.length > 0) appendFileSync(process.env.LOOM_TEST_MODULE_TRACE, cached.join('\\n') + '\\n');
});
`;
}

interface Loaded {
  /** Files the process loaded, relative to the repository (the tracer's own files left out). */
  files: string[];
  /** The sources inside the loaded bundle files, as esbuild names them (`src/...`, `node_modules/...`). */
  sources: Set<string>;
}

function traced(home: string): { env: NodeJS.ProcessEnv; read: () => Loaded } {
  const folder = temporaryFolder('loom-trace-');
  const hooks = join(folder, 'hooks.mjs');
  const start = join(folder, 'preload.mjs');
  const trace = join(folder, 'trace.txt');
  writeFileSync(hooks, HOOKS);
  writeFileSync(start, preload(hooks));
  writeFileSync(trace, '');
  return {
    env: { NODE_OPTIONS: `--import=${pathToFileURL(start).href}`, LOOM_TEST_MODULE_TRACE: trace },
    read() {
      const files = readFileSync(trace, 'utf8')
        .split('\n')
        .filter((line) => line.length > 0 && !line.startsWith('node:'))
        .map((line) => (line.startsWith('file:') ? fileURLToPath(line) : line))
        .filter((path) => !path.startsWith(folder) && !path.startsWith(home))
        .map((path) =>
          path.startsWith(`${built}/`) ? `dist/${path.slice(built.length + 1)}` : path,
        )
        .map((path) => (path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path));
      const sources = new Set<string>();
      for (const file of files) {
        for (const input of Object.keys(bundleMeta.outputs[file]?.inputs ?? {})) sources.add(input);
      }
      return { files: [...new Set(files)], sources };
    },
  };
}

/** Sources that no start may load unless its path uses them (web_fetch's page libraries too). */
const HEAVY =
  /node_modules\/(@ai-sdk\/(anthropic|openai|deepseek|openai-compatible)|ai|yaml|zod|ajv|acorn|@agentclientprotocol\/sdk|@modelcontextprotocol\/sdk|@clack\/prompts|linkedom|@mozilla\/readability|turndown|unpdf)\//;

function heavy(loaded: Loaded): string[] {
  const names = [...loaded.files, ...loaded.sources]
    .filter((path) => HEAVY.test(path))
    .map((path) => HEAVY.exec(path)?.[1]);
  return [...new Set(names)].sort() as string[];
}

const outsideBundle = (loaded: Loaded) =>
  loaded.files.filter(
    (file) =>
      !['bin/loom', 'bin/cached-bundle.js', 'bin/package.json'].includes(file) &&
      !file.startsWith('dist/bundle/'),
  );

/** `loom run` of `prompt` in `home` with the scripted model file `model`. */
const scriptedTurn = (home: string, model: string, prompt: string) => [
  'run',
  '--model',
  `scripted:${model}`,
  '--cwd',
  home,
  prompt,
];

/** Runs bin/loom with `args` under the tracer; checks it exits 0; returns what it loaded and printed. */
async function tracedRun(
  home: string,
  args: string[],
): Promise<{ loaded: Loaded; stdout: string }> {
  const trace = traced(home);
  const run = startLoom(args, { home, env: trace.env });
  assert.equal((await run.exited).code, 0, run.stderr());
  return { loaded: trace.read(), stdout: run.stdout() };
}

test('loom --version loads the bundle entry and commander, not the runtime', async () => {
  const home = temporaryFolder();
  const { loaded } = await tracedRun(home, ['--version']);
  assert.deepEqual(outsideBundle(loaded), []);
  assert.ok(loaded.sources.has('src/cli/main.ts'));
  const runtime = [...loaded.sources].filter(
    (source) => source.includes('node_modules/zod/') || source === 'src/cli/build-runtime.ts',
  );
  assert.deepEqual(runtime, []);
  assert.deepEqual(heavy(loaded), [], 'no MCP SDK either');
});

test('a scripted loom run loads only bundle files, and no provider, zod, yaml, ajv, acorn or ACP', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { rules: [], default: { reply: 'ok' } });
  const { loaded, stdout } = await tracedRun(home, scriptedTurn(home, model, 'hello'));
  assert.equal(stdout.trim(), 'ok');
  assert.deepEqual(outsideBundle(loaded), []);
  assert.ok(loaded.sources.has('src/cli/build-runtime.ts'), 'the trace saw the runtime load');
  assert.deepEqual(heavy(loaded), []);
});

test('with a config file loom run loads yaml and zod to read it, from their bundled chunks (the trace sees lazy loads)', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { rules: [], default: { reply: 'ok' } });
  writeFileSync(join(home, 'config.yaml'), 'agent:\n  maxSteps: 5\n');
  const { loaded } = await tracedRun(home, scriptedTurn(home, model, 'hello'));
  assert.deepEqual(heavy(loaded), ['yaml', 'zod']);
  assert.deepEqual(
    outsideBundle(loaded),
    [],
    'yaml and zod come from dist/bundle, with their code caches',
  );
});

test('a tool call checks its arguments with ajv from its bundled chunk, not node_modules', async () => {
  const home = temporaryFolder();
  writeFileSync(join(home, 'notes.txt'), 'hello\n');
  const model = writeScriptedModel(home, {
    rules: [],
    default: {
      steps: [
        { tools: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
        { reply: 'read it' },
      ],
    },
  });
  const { loaded, stdout } = await tracedRun(home, scriptedTurn(home, model, 'read'));
  assert.equal(stdout.trim(), 'read it');
  assert.deepEqual(heavy(loaded), ['ajv']);
  assert.deepEqual(outsideBundle(loaded), []);
});

test('web_fetch loads its page libraries at its first HTML page (web-pages.cjs) and unpdf at its first PDF', async () => {
  const server = createServer((request, response) => {
    if (request.url === '/report.pdf') {
      response.writeHead(200, { 'content-type': 'application/pdf' });
      response.end(pdfWith('Quarterly figures rose'));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(
      '<html><head><title>Page</title></head><body><p>A <a href="/x">link</a>.</p></body></html>',
    );
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  try {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const home = temporaryFolder();
    writeFileSync(join(home, 'config.yaml'), 'web:\n  allowPrivate: true\n');
    const fetched = async (path: string): Promise<Loaded> => {
      const model = writeScriptedModel(home, {
        rules: [],
        default: {
          steps: [
            { tools: [{ name: 'web_fetch', arguments: { url: `${origin}${path}` } }] },
            { reply: 'fetched' },
          ],
        },
      });
      const { loaded, stdout } = await tracedRun(home, scriptedTurn(home, model, 'fetch'));
      assert.equal(stdout.trim(), 'fetched');
      return loaded;
    };
    const web = (loaded: Loaded) =>
      heavy(loaded).filter((name) => !['ajv', 'yaml', 'zod'].includes(name));
    const page = await fetched('/page.html');
    assert.deepEqual(web(page), ['@mozilla/readability', 'linkedom', 'turndown']);
    assert.ok(page.files.includes('dist/bundle/web-pages.cjs'), 'from their bundle file');
    assert.deepEqual(outsideBundle(page), []);
    const pdf = await fetched('/report.pdf');
    assert.deepEqual(web(pdf), ['unpdf']);
    assert.ok(!pdf.files.includes('dist/bundle/web-pages.cjs'));
  } finally {
    server.close();
  }
});

test('loom run loads the MCP SDK only when a server is configured', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { rules: [], default: { reply: 'ok' } });
  const server = resolve('test/mcp/fixtures/stdio-server.mjs');
  writeFileSync(
    join(home, 'config.yaml'),
    `mcp:\n  servers:\n    files: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(server)}] }\n`,
  );
  const { loaded } = await tracedRun(home, scriptedTurn(home, model, 'hello'));
  // ajv compiles the servers' tool schemas; yaml and zod read the config.
  assert.deepEqual(heavy(loaded), ['@modelcontextprotocol/sdk', 'ajv', 'yaml', 'zod']);
});

test('loom acp answers initialize with the protocol loaded and the runtime not yet', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { rules: [], default: { reply: 'ok' } });
  const trace = traced(home);
  const acp = startLoom(['acp', '--model', `scripted:${model}`], {
    home,
    env: trace.env,
    keepStdinOpen: true,
  });
  acp.child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
  );
  const answer = JSON.parse(await acp.waitForLine(/"id":0/)) as { result?: unknown };
  assert.ok(answer.result, JSON.stringify(answer));
  acp.child.stdin.end();
  assert.equal((await acp.exited).code, 0, acp.stderr());
  const loaded = trace.read();
  assert.deepEqual(outsideBundle(loaded), []);
  // The ACP SDK checks every message with zod schemas of its own.
  assert.deepEqual(heavy(loaded), ['@agentclientprotocol/sdk', 'zod']);
  const runtime = [...loaded.sources].filter((source) =>
    /^src\/(cli\/build-runtime|tools|workflow|subagent)\b/.test(source),
  );
  assert.deepEqual(runtime, []);
});

/** The interactive terminal's libraries: only `loom` with no command may load them. */
const TERMINAL_UI =
  /node_modules\/(ink|react|react-reconciler|scheduler|yoga-layout|marked|marked-terminal|cli-highlight|highlight\.js)\//;

function terminalLibraries(loaded: Loaded): string[] {
  const names = [...loaded.files, ...loaded.sources].map((path) => TERMINAL_UI.exec(path)?.[1]);
  return [...new Set(names.filter((name) => name !== undefined))].sort();
}

test('loom --version, loom run and loom acp never load ink, React or marked', async () => {
  const bundled = terminalLibraries({
    files: [],
    sources: new Set(
      Object.values(bundleMeta.outputs).flatMap((output) => Object.keys(output.inputs)),
    ),
  });
  assert.deepEqual(
    ['ink', 'marked', 'react'].filter((name) => !bundled.includes(name)),
    [],
    'the bundle holds the terminal libraries under the names this test looks for',
  );
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { rules: [], default: { reply: 'ok' } });
  const version = traced(home);
  const versionRun = startLoom(['--version'], { home, env: version.env });
  assert.equal((await versionRun.exited).code, 0, versionRun.stderr());
  assert.deepEqual(terminalLibraries(version.read()), []);

  const run = traced(home);
  const turn = startLoom(['run', '--model', `scripted:${model}`, '--cwd', home, 'hello'], {
    home,
    env: run.env,
  });
  assert.equal((await turn.exited).code, 0, turn.stderr());
  const turnLoaded = run.read();
  assert.ok(turnLoaded.sources.has('src/cli/build-runtime.ts'), 'the trace saw the runtime load');
  assert.deepEqual(terminalLibraries(turnLoaded), []);

  const acpTrace = traced(home);
  const acp = startLoom(['acp', '--model', `scripted:${model}`], {
    home,
    env: acpTrace.env,
    keepStdinOpen: true,
  });
  acp.child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
  );
  await acp.waitForLine(/"id":0/);
  acp.child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: home, mcpServers: [] } })}\n`,
  );
  await acp.waitForLine(/"id":1/);
  acp.child.stdin.end();
  assert.equal((await acp.exited).code, 0, acp.stderr());
  const acpLoaded = acpTrace.read();
  assert.ok(acpLoaded.sources.has('src/cli/build-runtime.ts'), 'the trace saw a session open');
  assert.deepEqual(terminalLibraries(acpLoaded), []);
});

/** The bundle files `output` loads before its code runs: its static imports, transitively. */
function staticClosure(output: string): string[] {
  const outputs = bundleMeta.outputs as Record<
    string,
    { inputs: Record<string, unknown>; imports?: Array<{ path: string; kind: string }> }
  >;
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !outputs[file]) return;
    seen.add(file);
    for (const imported of outputs[file].imports ?? []) {
      if (imported.kind === 'import-statement') visit(imported.path);
    }
  };
  visit(output);
  return [...seen];
}

test("the interactive terminal's first frame is drawn from small modules: no ink, React, zod or runtime", () => {
  const outputs = bundleMeta.outputs as Record<string, { entryPoint?: string; inputs: object }>;
  const entry = Object.keys(outputs).find(
    (file) => outputs[file]?.entryPoint === 'src/tui/tui-command.ts',
  );
  assert.ok(entry, 'tui-command.ts is a chunk of its own');
  const sources = staticClosure(entry).flatMap((file) => Object.keys(outputs[file]?.inputs ?? {}));
  assert.ok(sources.includes('src/tui/first-frame.ts'));
  const heavy = sources.filter(
    (source) =>
      TERMINAL_UI.test(source) ||
      source.includes('node_modules/zod/') ||
      /^src\/(cli\/build-runtime|core\/runtime|tools|workflow|subagent)\b/.test(source),
  );
  assert.deepEqual(heavy, []);
});

test('the terminal loads the Markdown libraries at its first Markdown and highlight.js at its first code block', async () => {
  const folders = scriptedFolders({
    rules: [
      { when: '^plain$', steps: [{ reply: 'A **bold** answer.' }] },
      { when: '^code$', steps: [{ reply: 'Run:\n\n```js\nconst answer = 42;\n```\n' }] },
    ],
    default: { reply: 'ok' },
  });
  const loadedBy = async (prompts: string[]): Promise<Loaded> => {
    const trace = traced(folders.home);
    const screen = startScreen(['--model', `scripted:${folders.model}`], {
      home: folders.home,
      cwd: folders.workspace,
      env: trace.env as Record<string, string>,
    });
    try {
      await screen.waitFor('ask loom, / for commands');
      for (const prompt of prompts) {
        screen.type(prompt);
        await screen.waitFor(`> ${prompt}`);
        screen.type(KEYS.enter);
        await screen.waitFor(prompt === 'plain' ? 'A bold answer.' : 'const answer = 42;');
      }
      screen.type(KEYS.ctrlD);
      assert.equal((await screen.exited).exitCode, 0);
      return trace.read();
    } finally {
      screen.kill();
    }
  };
  const lazy = (loaded: Loaded) =>
    loaded.files.filter((file) => /^dist\/bundle\/(markdown|highlight)\.cjs$/.test(file)).sort();

  const idle = await loadedBy([]);
  assert.deepEqual(terminalLibraries(idle), [
    'ink',
    'react',
    'react-reconciler',
    'scheduler',
    'yoga-layout',
  ]);
  assert.deepEqual(lazy(idle), []);
  assert.deepEqual(lazy(await loadedBy(['plain'])), ['dist/bundle/markdown.cjs']);
  const code = await loadedBy(['code']);
  assert.deepEqual(lazy(code), ['dist/bundle/highlight.cjs', 'dist/bundle/markdown.cjs']);
  assert.deepEqual(terminalLibraries(code), [
    'cli-highlight',
    'highlight.js',
    'ink',
    'marked',
    'marked-terminal',
    'react',
    'react-reconciler',
    'scheduler',
    'yoga-layout',
  ]);
});
