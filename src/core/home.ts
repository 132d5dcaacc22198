/**
 * Where Loom keeps its state: `$LOOM_HOME` (default `~/.loom`) holds config.yaml and sessions/.
 * Pure path logic; creates nothing.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function loomHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.LOOM_HOME;
  return configured && configured.length > 0 ? resolve(configured) : join(homedir(), '.loom');
}

export function sessionsDirectory(home: string): string {
  return join(home, 'sessions');
}
