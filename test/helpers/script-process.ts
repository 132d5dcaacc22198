/**
 * Another process for a test: `node --import tsx SCRIPT` with piped standard streams, resolved
 * once its standard output has printed `ready` (a line it writes when set up); rejected, with
 * its standard error, when it exits before.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';

export interface ScriptProcess {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<unknown[]>;
}

export async function startScriptProcess(script: string, ready: string): Promise<ScriptProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: 'pipe' });
  const exited = once(child, 'exit');
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString('utf8');
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes(`${ready}\n`)) resolve();
    });
    exited.then(() => reject(new Error(`${script} exited before it printed ${ready}: ${errors}`)));
  });
  return { child, exited };
}
