/**
 * Runs git on a shadow repository: its own git dir and index, the workspace as work tree, and an
 * environment of its own (no inherited `GIT_*` variable, no system or global config, no hooks,
 * no signing, no credentials), so the user's repository and settings never take part. It must
 * never run git on the user's own `.git`.
 */
import { spawn } from 'node:child_process';
import { CheckpointError } from './contract.js';

export interface GitPlace {
  /** The shadow repository's git dir. */
  gitDir: string;
  /** The workspace (the work tree). */
  workspace: string;
}

export interface GitOutput {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Settings on every command line: the user's config cannot change what a snapshot holds. */
const SETTINGS = [
  'core.hooksPath=/dev/null',
  'core.bare=false',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.symlinks=true',
  'core.fileMode=true',
  'core.fsmonitor=false',
  'core.untrackedCache=true',
  'core.quotePath=false',
  'core.preloadIndex=true',
  'gc.auto=0',
  'commit.gpgSign=false',
  'advice.addEmbeddedRepo=false',
  'safe.directory=*',
];

const CONFIG_ARGUMENTS = SETTINGS.flatMap((setting) => ['-c', setting]);

function environment(place: GitPlace): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: place.gitDir,
    LC_ALL: 'C',
    GIT_DIR: place.gitDir,
    GIT_WORK_TREE: place.workspace,
    GIT_INDEX_FILE: `${place.gitDir}/index`,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'loom',
    GIT_AUTHOR_EMAIL: 'loom@localhost',
    GIT_COMMITTER_NAME: 'loom',
    GIT_COMMITTER_EMAIL: 'loom@localhost',
  };
}

/** Runs `git ARGS` in the shadow repository; resolves with its exit code and output, never rejects on a non-zero exit. */
export function runGit(
  place: GitPlace,
  args: string[],
  options: { bare?: boolean } = {},
): Promise<GitOutput> {
  const env = environment(place);
  if (options.bare) {
    delete env.GIT_WORK_TREE;
    delete env.GIT_INDEX_FILE;
    delete env.GIT_DIR;
  }
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...CONFIG_ARGUMENTS, ...args], {
      cwd: place.workspace,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        new CheckpointError(
          'CHECKPOINT_FAILED',
          error.code === 'ENOENT'
            ? 'checkpoints need git, which is not on PATH: install git (apt-get install git), or set checkpoints.enabled: false'
            : `could not run git for checkpoints: ${error.message}`,
        ),
      );
    });
    child.on('close', (code) => {
      resolve({ code: code ?? 1, stdout: Buffer.concat(out), stderr: err });
    });
  });
}

/** `runGit`, throwing CHECKPOINT_FAILED with git's message when it exits non-zero. */
export async function git(
  place: GitPlace,
  args: string[],
  options: { bare?: boolean } = {},
): Promise<Buffer> {
  const output = await runGit(place, args, options);
  if (output.code !== 0) {
    throw new CheckpointError(
      'CHECKPOINT_FAILED',
      `git ${args[0]} failed in the shadow repository ${place.gitDir}: ${output.stderr.trim() || `exit ${output.code}`}`,
    );
  }
  return output.stdout;
}
