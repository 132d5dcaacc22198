/**
 * Shared pieces of the sandbox tests through `bin/loom`: folders outside /tmp (inside the sandbox
 * /tmp is private, so a secret or a target there would be out of reach for that reason alone),
 * a `loom run --json` whose one step makes many tool calls in order, and a loopback HTTP server.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ScriptedRule, ScriptedToolCall } from '../../src/llm/scripted-rules.js';
import { ndjsonLines, toolResults } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runScripted, type ScriptedFolders, writeScriptedModel } from './loom-process.js';

const made: string[] = [];
let cleanup = false;

/** A fresh folder outside /tmp (under /var/tmp), removed when the test process exits. */
export function outsideFolder(): string {
  const base = existsSync('/var/tmp') ? '/var/tmp' : process.cwd();
  const folder = realpathSync(mkdtempSync(join(base, 'loom-sandbox-test-')));
  made.push(folder);
  if (!cleanup) {
    cleanup = true;
    process.on('exit', () => {
      for (const path of made) rmSync(path, { recursive: true, force: true });
    });
  }
  return folder;
}

export interface SandboxWorld {
  folders: ScriptedFolders;
  /** `$HOME` of the loom process, with `.ssh/id_test` planted. */
  home: string;
  /** A folder outside the workspace and outside /tmp. */
  outside: string;
  secret: string;
}

/**
 * A LOOM_HOME and a `$HOME` outside /tmp (secrets planted: `.ssh/id_test`, a file in LOOM_HOME),
 * a git workspace, and a folder outside it; `config` is LOOM_HOME's config.yaml.
 */
export function sandboxWorld(config: string): SandboxWorld {
  const loomHome = outsideFolder();
  const home = outsideFolder();
  const outside = outsideFolder();
  const workspace = temporaryFolder('loom-sandbox-ws-');
  const secret = `ssh-secret-${Math.random().toString(36).slice(2)}`;
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh/id_test'), secret);
  writeFileSync(join(loomHome, 'planted.txt'), secret);
  writeFileSync(join(loomHome, 'config.yaml'), config);
  execFileSync('git', ['init', '-q', workspace]);
  return {
    folders: { home: loomHome, workspace, model: join(loomHome, 'model.json') },
    home,
    outside,
    secret,
  };
}

/** Runs `loom run --json` whose one step makes `calls` in order; each call's result content. */
export async function runCalls(
  world: SandboxWorld,
  calls: ScriptedToolCall[],
  env: NodeJS.ProcessEnv = {},
  moreRules: ScriptedRule[] = [],
): Promise<{ contents: string[]; stdout: string; stderr: string; code: number | null }> {
  writeScriptedModel(world.folders.home, {
    rules: [
      ...moreRules,
      { when: '^go$', steps: [{ tools: calls }, { reply: 'done' }] },
      // A background job's end is told to the model as a message of its own.
      { when: '^\\[job ', reply: 'noted' },
    ],
  });
  const result = await runScripted(world.folders, 'go', {
    json: true,
    env: { HOME: world.home, ...env },
  });
  const contents = toolResults(ndjsonLines(result.stdout)).map((data) => data.content ?? '');
  return { contents, stdout: result.stdout, stderr: result.stderr, code: result.code };
}

/** An HTTP server on 127.0.0.1 answering `reachable`; close it with `server.close()`. */
export async function loopbackServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => response.end('reachable'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/` };
}

/** A node one-liner printing what `url` answers, or `unreachable CODE`. */
export function fetchCommand(url: string): string {
  return (
    `"${process.execPath}" -e "fetch('${url}').then((r) => r.text()).then(console.log, ` +
    `(e) => { console.log('unreachable', e.cause?.code ?? e.message); process.exit(7); })"`
  );
}
