/**
 * A git repository for tests of what Loom does with one (agents' worktrees): a temporary folder
 * with one commit, a named committer of its own (no global config is read), and a helper that
 * runs git in it. Test-only.
 */
import { execFileSync } from 'node:child_process';
import { writeTree } from './file-tree.js';
import { temporaryFolder } from './temporary-folder.js';

export interface GitRepository {
  folder: string;
  /** Runs git in the repository; returns its trimmed stdout, throws on a non-zero exit. */
  git(...args: string[]): string;
}

/** Git reads neither the user's nor the system's config in tests. */
export const isolatedGitEnvironment = (): NodeJS.ProcessEnv => ({
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
});

export function gitRepository(
  files: Record<string, string> = { 'README.md': 'hello\n' },
  options: { identity?: boolean } = {},
): GitRepository {
  const folder = temporaryFolder('loom-git-');
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: folder,
      env: isolatedGitEnvironment(),
      encoding: 'utf8',
    }).trim();
  git('init', '--quiet', '--initial-branch=main');
  writeTree(folder, files);
  git('add', '--all');
  git(
    '-c',
    'user.name=Tester',
    '-c',
    'user.email=tester@example.com',
    'commit',
    '--quiet',
    '-m',
    'first',
  );
  if (options.identity !== false) {
    git('config', 'user.name', 'Tester');
    git('config', 'user.email', 'tester@example.com');
  }
  return { folder, git };
}
