/**
 * The workspace's files and folders for `@path` completion: listed by `git ls-files` (so
 * .gitignore is respected) or, outside a repository, by a walk that skips node_modules and .git.
 * Listing runs in the background and is refreshed when older than a few seconds; reading the
 * list never blocks a key. It only reads the workspace, never writes it.
 */
import { execFile } from 'node:child_process';
import { walkFiles } from '../tools/walk-files.js';

/** At most this many files are listed. */
const MAX_FILES = 20_000;
/** A list older than this is listed again when asked for. */
const STALE_AFTER_MS = 5_000;

export class WorkspacePaths {
  private paths: readonly string[] | undefined;
  private listedAt = 0;
  private listing: Promise<void> | undefined;

  /** `onListed` hears each finished listing (the prompt redraws its menu); must not throw. */
  constructor(
    private readonly root: string,
    private readonly onListed: () => void = () => {},
  ) {}

  /** The latest list (folders end with `/`), starting a new listing when missing or stale. */
  current(): readonly string[] | undefined {
    if (this.listing === undefined && Date.now() - this.listedAt > STALE_AFTER_MS) {
      this.listing = this.list().finally(() => {
        this.listing = undefined;
      });
    }
    return this.paths;
  }

  /** Resolves once a listing started now (or running) has finished. */
  async ready(): Promise<readonly string[]> {
    this.current();
    await this.listing;
    return this.paths ?? [];
  }

  private async list(): Promise<void> {
    const files = (await gitFiles(this.root)) ?? (await walkedFiles(this.root));
    this.paths = withFolders(files);
    this.listedAt = Date.now();
    this.onListed();
  }
}

/** The paths to offer for `query`: prefix matches, then name prefix, then substring; shallow first. */
export function rankPaths(paths: readonly string[], query: string, limit = 8): string[] {
  const wanted = query.toLowerCase();
  const scored: Array<{ path: string; score: number; depth: number }> = [];
  for (const path of paths) {
    const lower = path.toLowerCase();
    const name = lower.replace(/\/$/, '').split('/').pop() ?? lower;
    const score = lower.startsWith(wanted)
      ? 0
      : name.startsWith(wanted)
        ? 1
        : lower.includes(wanted)
          ? 2
          : -1;
    if (score < 0) continue;
    scored.push({ path, score, depth: path.replace(/\/$/, '').split('/').length });
  }
  scored.sort(
    (left, right) =>
      left.score - right.score ||
      left.depth - right.depth ||
      (left.path < right.path ? -1 : left.path > right.path ? 1 : 0),
  );
  return scored.slice(0, limit).map((entry) => entry.path);
}

/** The `@` mention the cursor ends, if any: where it starts and what follows the `@`. */
export function mentionAt(
  text: string,
  cursor: number,
): { start: number; query: string } | undefined {
  const before = text.slice(0, cursor);
  const match = /(^|\s)@(\S*)$/.exec(before);
  if (!match) return undefined;
  const query = match[2] ?? '';
  return { start: cursor - query.length - 1, query };
}

function withFolders(files: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const file of files) {
    const parts = file.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      folders.add(`${parts.slice(0, depth).join('/')}/`);
    }
  }
  return [...folders, ...files];
}

function gitFiles(root: string): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['ls-files', '--cached', '--others', '--exclude-standard', '-z'],
      { cwd: root, maxBuffer: 64 * 1024 * 1024, windowsHide: true },
      (error, stdout) => {
        if (error) {
          resolve(undefined);
          return;
        }
        const files = stdout.split('\0').filter((file) => file !== '');
        resolve(files.slice(0, MAX_FILES));
      },
    );
  });
}

async function walkedFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  for await (const file of walkFiles(root)) {
    files.push(file.relativePath);
    if (files.length >= MAX_FILES) break;
  }
  return files;
}
