/**
 * Another process that opens a session file for writing (so it holds the session's writer
 * lock) and keeps it until the test ends its standard input: then it closes the log, or, with
 * `exitWithoutClose`, leaves through `process.exit` with the log still open.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporaryFolder } from './temporary-folder.js';

export interface SessionHolder {
  child: ChildProcessWithoutNullStreams;
  pid: number;
  /** Ends standard input; resolves with the exit code once the holder has let go and exited. */
  finish(): Promise<number | null>;
  /** SIGKILLs the holder; resolves once it is gone (and reaped). */
  kill(): Promise<void>;
}

const sessionLogUrl = new URL('../../src/core/session-log.ts', import.meta.url).href;

export async function holdSession(
  path: string,
  options: { exitWithoutClose?: boolean; appendOnFinish?: boolean } = {},
): Promise<SessionHolder> {
  const script = join(temporaryFolder('loom-session-holder-'), 'hold.mjs');
  writeFileSync(
    script,
    [
      `const { SessionLog } = await import(${JSON.stringify(sessionLogUrl)});`,
      `const log = SessionLog.open(${JSON.stringify(path)});`,
      `process.stdout.write('holding\\n');`,
      `process.stdin.resume();`,
      `process.stdin.on('end', () => {`,
      options.appendOnFinish ? `  log.append('turn/start', { turnId: 'holder' });` : '',
      options.exitWithoutClose ? '  process.exit(0);' : '  log.close();',
      `  process.stdin.pause();`,
      `});`,
    ].join('\n'),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: 'pipe' });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString('utf8');
  });
  child.stdout.setEncoding('utf8');
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('holding\n')) resolve();
    });
    exited.then(() => reject(new Error(`the holder exited before holding ${path}: ${errors}`)));
  });
  await ready;
  return {
    child,
    pid: child.pid as number,
    async finish() {
      child.stdin.end();
      const [code] = await exited;
      return code;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A pid that belonged to a process that has exited (and been reaped). */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid as number;
}
