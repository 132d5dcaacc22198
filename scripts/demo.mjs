// `npm run demo`: copies examples/demo/workspace to a scratch folder and runs one offline turn
// over the scripted model there, so the repository's own files are never edited.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const scratch = mkdtempSync(join(tmpdir(), 'loom-demo-'));
const workspace = join(scratch, 'workspace');
cpSync('examples/demo/workspace', workspace, { recursive: true });
process.stderr.write(`loom demo: scratch workspace ${workspace}\n\n`);
const result = spawnSync(
  process.execPath,
  [
    'bin/loom',
    'run',
    '--model',
    'scripted:examples/demo/model.json',
    '--cwd',
    workspace,
    'tidy the greeting',
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, LOOM_HOME: process.env.LOOM_HOME ?? join(scratch, 'home') },
  },
);
process.exit(result.status ?? 1);
