/**
 * Temporary folders for tests: each is real-path resolved (so symlink checks compare like with
 * like) and removed when the test process exits.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const folders: string[] = [];
let cleanupInstalled = false;

export function temporaryFolder(prefix = 'loom-test-'): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  folders.push(folder);
  if (!cleanupInstalled) {
    cleanupInstalled = true;
    process.on('exit', () => {
      for (const created of folders) rmSync(created, { recursive: true, force: true });
    });
  }
  return folder;
}
