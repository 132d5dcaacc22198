/**
 * Drives the interactive `bin/loom` in a real pseudo-terminal (@lydell/node-pty) and keeps what
 * it draws in a headless xterm (@xterm/headless), so tests assert on the screen a person sees.
 * Tests wait for text to appear on the screen, never on time.
 */

import type { TestContext } from 'node:test';
import { spawn } from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { LOOM_BIN, type ScriptedFolders } from '../cli/loom-process.js';

export const KEYS = {
  enter: '\r',
  escape: '\x1b',
  up: '\x1b[A',
  down: '\x1b[B',
  shiftTab: '\x1b[Z',
  ctrlC: '\x03',
  ctrlD: '\x04',
  backspace: '\x7f',
} as const;

export interface ScreenRun {
  /** The visible screen (and what scrolled above it) as text, one line per row, right-trimmed. */
  text(): string;
  /**
   * Resolves once the screen shows `pattern` (or `pattern(screen)` is true), rejecting with the
   * screen after `timeoutMs`.
   */
  waitFor(
    pattern: RegExp | string | ((screen: string) => boolean),
    timeoutMs?: number,
  ): Promise<string>;
  /** How the first cell of the first place showing `text` is drawn, or undefined if not shown. */
  styleOf(text: string): CellStyle | undefined;
  /** Writes keys as a user types them. */
  type(keys: string): void;
  resize(columns: number, rows: number): void;
  exited: Promise<{ exitCode: number; output: string }>;
  kill(): void;
}

export interface CellStyle {
  /** The palette index of the foreground colour (0-255), or undefined for another colour mode. */
  foreground: number | undefined;
  bold: boolean;
  dim: boolean;
  italic: boolean;
}

export interface ScreenOptions {
  home: string;
  cwd: string;
  env?: Record<string, string>;
  columns?: number;
  rows?: number;
}

export function startScreen(args: string[], options: ScreenOptions): ScreenRun {
  const columns = options.columns ?? 100;
  const rows = options.rows ?? 40;
  const terminal = new xterm.Terminal({
    cols: columns,
    rows,
    allowProposedApi: true,
    scrollback: 5000,
  });
  const child = spawn(process.execPath, [LOOM_BIN, ...args], {
    cols: columns,
    rows,
    cwd: options.cwd,
    name: 'xterm-256color',
    env: {
      // ink draws only its static output when it believes it runs under CI.
      ...(withoutCi(process.env) as Record<string, string>),
      LOOM_HOME: options.home,
      FORCE_COLOR: '1',
      ...options.env,
    },
  });
  let raw = '';
  let pending = Promise.resolve();
  const waiters = new Set<() => void>();
  child.onData((data) => {
    raw += data;
    pending = pending.then(
      () =>
        new Promise<void>((resolve) => {
          terminal.write(data, () => {
            for (const check of [...waiters]) check();
            resolve();
          });
        }),
    );
  });
  const exited = new Promise<{ exitCode: number; output: string }>((resolve) => {
    child.onExit(({ exitCode }) => {
      void pending.then(() => resolve({ exitCode, output: raw }));
    });
  });
  const text = () => {
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let index = 0; index < buffer.length; index++) {
      lines.push(buffer.getLine(index)?.translateToString(true) ?? '');
    }
    return lines.join('\n').replace(/\n+$/, '');
  };
  return {
    text,
    waitFor(pattern, timeoutMs = 20_000) {
      const matches = () =>
        typeof pattern === 'string'
          ? text().includes(pattern)
          : typeof pattern === 'function'
            ? pattern(text())
            : pattern.test(text());
      return new Promise((resolve, reject) => {
        if (matches()) {
          resolve(text());
          return;
        }
        const check = () => {
          if (!matches()) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(text());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          const wanted = typeof pattern === 'function' ? 'what the check wants' : String(pattern);
          reject(new Error(`the screen never showed ${wanted}; it shows:\n${text()}`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    type(keys) {
      child.write(keys);
    },
    styleOf(wanted) {
      const buffer = terminal.buffer.active;
      for (let index = 0; index < buffer.length; index++) {
        const line = buffer.getLine(index);
        const column = line?.translateToString(true).indexOf(wanted) ?? -1;
        const cell = column >= 0 ? line?.getCell(column) : undefined;
        if (!cell) continue;
        return {
          foreground: cell.isFgPalette() ? cell.getFgColor() : undefined,
          bold: cell.isBold() !== 0,
          dim: cell.isDim() !== 0,
          italic: cell.isItalic() !== 0,
        };
      }
      return undefined;
    },
    resize(newColumns, newRows) {
      child.resize(newColumns, newRows);
      terminal.resize(newColumns, newRows);
    },
    exited,
    kill() {
      child.kill();
    },
  };
}

/** Types `text`, waits until the prompt shows it (so no key is lost to a redraw), then Enter. */
export async function send(screen: ScreenRun, text: string): Promise<void> {
  screen.type(text);
  await screen.waitFor(`> ${text}`);
  screen.type(KEYS.enter);
}

/** Leaves with Ctrl+C twice and expects a clean exit. */
export async function quit(screen: ScreenRun): Promise<void> {
  screen.type(KEYS.ctrlC);
  await screen.waitFor('press ctrl+c again to exit');
  screen.type(KEYS.ctrlC);
  const { exitCode } = await screen.exited;
  if (exitCode !== 0) throw new Error(`loom exited ${exitCode}:\n${screen.text()}`);
}

function withoutCi(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { CI: _ci, CONTINUOUS_INTEGRATION: _continuous, ...rest } = env;
  return rest;
}

/** `loom` on the scripted model of `folders` in a pty, ready for input; killed when the test ends. */
export async function openLoom(
  t: TestContext,
  folders: ScriptedFolders,
  columns?: number,
): Promise<ScreenRun> {
  const screen = startScreen(['--model', `scripted:${folders.model}`], {
    home: folders.home,
    cwd: folders.workspace,
    ...(columns !== undefined ? { columns } : {}),
  });
  let exited = false;
  void screen.exited.then(() => {
    exited = true;
  });
  t.after(() => {
    if (!exited) screen.kill();
  });
  await screen.waitFor('ask loom');
  return screen;
}
