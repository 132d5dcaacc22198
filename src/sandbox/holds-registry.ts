/**
 * Where the sandbox's placeholder holds live (see `placeholders.ts`): one folder per user in the
 * machine's temporary folder, `loom-sandbox-holds-UID`, shared by every Loom process of that user
 * whatever its `$LOOM_HOME`, since two processes in one workspace can have different homes.
 * Made private (0700); one that is not a real folder of this user, or that others may write,
 * is refused, never used: a hold another user could remove would let a placeholder go while a
 * command binds it. Commands never see it (the sandbox's /tmp is its own, and the plan hides it
 * where a bind would show it).
 */
import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../base/errors.js';

/** The folder this user's Loom processes share; not made here. */
export function sharedHoldsFolder(): string {
  let base = tmpdir();
  try {
    base = realpathSync(base);
  } catch {
    // A temporary folder that does not exist fails where it is made, naming it.
  }
  return join(base, `loom-sandbox-holds-${userId()}`);
}

/** Folders made and checked by this process. */
const checked = new Set<string>();

/** Makes `folder` (0700) unless there, and throws unless it is a private real folder of this user. */
export function readyHoldsFolder(folder: string): void {
  if (checked.has(folder)) return;
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new Error(
      `the sandbox's registry of placeholder holds ${folder} cannot be made (${errorMessage(error)}); set TMPDIR to a folder this user can write`,
    );
  }
  const status = lstatSync(folder);
  const problem = !status.isDirectory()
    ? 'is not a folder (a symbolic link?)'
    : process.getuid !== undefined && status.uid !== process.getuid()
      ? `belongs to user ${status.uid}, not to this one (${userId()})`
      : (status.mode & 0o022) !== 0
        ? `can be written by other users (mode ${(status.mode & 0o777).toString(8)})`
        : undefined;
  if (problem !== undefined) {
    throw new Error(
      `the sandbox's registry of placeholder holds ${folder} ${problem}; remove it (Loom makes it again, private to this user)`,
    );
  }
  checked.add(folder);
}

function userId(): string {
  return process.getuid === undefined ? 'user' : String(process.getuid());
}
