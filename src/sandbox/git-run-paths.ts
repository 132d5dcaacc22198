/**
 * Paths inside the workspace that git reads and runs from outside the sandbox, beyond
 * `.git/hooks` and `.git/config`: the folder `core.hooksPath` names (husky's `.husky`, a
 * `.githooks` set in any scope of git's config, relative ones taken from the work tree's root),
 * and config files that the repository's config includes. A sandboxed command that could write
 * one would plant a hook or a config that runs at the user's next `git commit`.
 *
 * Asked of git itself (`git config --show-origin`), so every scope, include and quoting rule is
 * git's own; cached per workspace until one of the config files it read changes. Without git
 * there is nothing git could run, so nothing to add.
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { isWithin } from './bwrap-arguments.js';

/** A path git runs hooks from (a folder) or reads config from (a file). */
export interface GitRunPath {
  path: string;
  kind: 'folder' | 'file';
}

interface Cached {
  /** Each config file git read, with its change stamp when read. */
  stamps: Map<string, string>;
  paths: GitRunPath[];
}

const cache = new Map<string, Cached>();

function stampOf(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

/** git's environment without the variables that would point it at another repository. */
function gitEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('GIT_')) env[name] = value;
  }
  return env;
}

/** `git config --list --show-origin` of `workspace`: origin file and `key=value`, each line. */
function configLines(workspace: string): { origin: string; entry: string }[] | undefined {
  let output: string;
  try {
    output = execFileSync('git', ['config', '--list', '--show-origin', '--includes', '-z'], {
      cwd: workspace,
      env: gitEnvironment(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return undefined;
  }
  // With -z: "file:PATH\0key\nvalue\0" per entry.
  const parts = output.split('\0');
  const lines: { origin: string; entry: string }[] = [];
  for (let index = 0; index + 1 < parts.length; index += 2) {
    lines.push({ origin: parts[index] as string, entry: parts[index + 1] as string });
  }
  return lines;
}

/** The default config files git reads even when they do not exist yet (a change shows there). */
function defaultConfigFiles(workspace: string): string[] {
  const home = process.env.HOME;
  const xdg = process.env.XDG_CONFIG_HOME ?? (home ? join(home, '.config') : undefined);
  return [
    join(workspace, '.git/config'),
    ...(home ? [join(home, '.gitconfig')] : []),
    ...(xdg ? [join(xdg, 'git/config')] : []),
    '/etc/gitconfig',
  ];
}

/**
 * Absolute paths inside `workspace` (its real path) that git runs or reads as config, other than
 * `.git/hooks` and `.git/config`; each may not exist yet. The workspace itself is among them when
 * `core.hooksPath` names it.
 */
export function gitRunPaths(workspace: string): GitRunPath[] {
  const cached = cache.get(workspace);
  if (cached && [...cached.stamps].every(([path, stamp]) => stampOf(path) === stamp)) {
    return cached.paths;
  }
  const stamps = new Map<string, string>();
  for (const path of defaultConfigFiles(workspace)) stamps.set(path, stampOf(path));
  const lines = configLines(workspace);
  const paths = new Map<string, GitRunPath['kind']>();
  for (const { origin, entry } of lines ?? []) {
    const file = origin.startsWith('file:') ? resolve(workspace, origin.slice(5)) : undefined;
    if (file !== undefined) {
      stamps.set(file, stampOf(file));
      if (isWithin(workspace, file)) paths.set(file, 'file');
    }
    const [key, ...rest] = entry.split('\n');
    if (key?.toLowerCase() === 'core.hookspath') {
      const value = rest.join('\n').replace(/^~(?=\/|$)/, process.env.HOME ?? '~');
      const folder = isAbsolute(value) ? resolve(value) : resolve(workspace, value);
      if (value !== '' && isWithin(workspace, folder)) paths.set(folder, 'folder');
    }
  }
  const protectedAlready = [join(workspace, '.git/config'), join(workspace, '.git/hooks')];
  const result = [...paths]
    .filter(([path]) => !protectedAlready.some((known) => isWithin(known, path)))
    .map(([path, kind]) => ({ path, kind }));
  cache.set(workspace, { stamps, paths: result });
  return result;
}
