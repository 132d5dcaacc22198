/**
 * A fake editor for ACP tests: it serves `fs/*` from open buffers (unsaved text that differs
 * from the disk) and the disk, keeps written files as buffers, runs `terminal/*` commands as
 * real local processes, and records every request. Waits are on recorded requests, never on time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type * as acp from '@agentclientprotocol/sdk';
import type { EditorHandlers } from './acp-client.js';

export interface EditorRequest {
  method: string;
  params: Record<string, unknown>;
}

interface FakeTerminal {
  child: ChildProcess;
  output: string;
  exit: Promise<acp.WaitForTerminalExitResponse>;
}

export class FakeEditor implements EditorHandlers {
  /** Open buffers by absolute path: what the editor shows, saved or not. */
  readonly buffers = new Map<string, string>();
  readonly requests: EditorRequest[] = [];
  private readonly terminals = new Map<string, FakeTerminal>();
  private readonly waiters: Array<{ method: string; resolve: (request: EditorRequest) => void }> =
    [];

  /** Resolves with the first request of `method`, once it has arrived. */
  waitFor(method: string): Promise<EditorRequest> {
    const seen = this.requests.find((request) => request.method === method);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ method, resolve }));
  }

  methods(): string[] {
    return this.requests.map((request) => request.method);
  }

  /** Kills every terminal's process still running (a test's clean-up). */
  closeAll(): void {
    for (const terminal of this.terminals.values()) terminal.child.kill('SIGKILL');
  }

  private record(method: string, params: object): void {
    const request = { method, params: params as Record<string, unknown> };
    this.requests.push(request);
    for (const waiter of [...this.waiters]) {
      if (waiter.method !== method) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(request);
    }
  }

  private terminal(id: string): FakeTerminal {
    const terminal = this.terminals.get(id);
    if (!terminal) throw new Error(`no terminal ${id}`);
    return terminal;
  }

  async readTextFile(request: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    this.record('fs/read_text_file', request);
    return { content: this.buffers.get(request.path) ?? readFileSync(request.path, 'utf8') };
  }

  async writeTextFile(request: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse> {
    this.record('fs/write_text_file', request);
    this.buffers.set(request.path, request.content);
    return {};
  }

  async createTerminal(request: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse> {
    this.record('terminal/create', request);
    const env = Object.fromEntries((request.env ?? []).map(({ name, value }) => [name, value]));
    const child = spawn(request.command, request.args ?? [], {
      cwd: request.cwd ?? undefined,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const terminal: FakeTerminal = {
      child,
      output: '',
      exit: new Promise((resolve) =>
        child.on('close', (code, signal) => resolve({ exitCode: code, signal })),
      ),
    };
    const append = (chunk: Buffer) => {
      terminal.output += chunk.toString('utf8');
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    const terminalId = `terminal-${this.terminals.size + 1}`;
    this.terminals.set(terminalId, terminal);
    return { terminalId };
  }

  async terminalOutput(request: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse> {
    this.record('terminal/output', request);
    return { output: this.terminal(request.terminalId).output, truncated: false };
  }

  async waitForTerminalExit(
    request: acp.WaitForTerminalExitRequest,
  ): Promise<acp.WaitForTerminalExitResponse> {
    this.record('terminal/wait_for_exit', request);
    return this.terminal(request.terminalId).exit;
  }

  async killTerminal(request: acp.KillTerminalRequest): Promise<acp.KillTerminalResponse> {
    this.record('terminal/kill', request);
    this.terminal(request.terminalId).child.kill('SIGKILL');
    return {};
  }

  async releaseTerminal(request: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse> {
    this.record('terminal/release', request);
    const terminal = this.terminal(request.terminalId);
    terminal.child.kill('SIGKILL');
    this.terminals.delete(request.terminalId);
    return {};
  }
}

/** The capabilities a client advertises for a full editor: files both ways and a terminal. */
export const EDITOR_CAPABILITIES: acp.ClientCapabilities = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
};
