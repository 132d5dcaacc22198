/**
 * How the file tools reach a file's content: a seam an agent's scope may fill (an editor that
 * serves its open buffers, say) with the local disk as the default. The tools check a path
 * (workspace containment, folders, special files, existence) before they call it, so an
 * implementation only reads or writes the content of a path already allowed; it must never be
 * handed a path the tools have not resolved inside the workspace, and never widens what they reach.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { UserError } from '../base/errors.js';
import { serviceKey } from '../core/context.js';
import type { ToolExecution } from '../core/tool-contract.js';
import { binaryProbeBytes, startsBinary } from './is-binary-file.js';
import { openRegularFile, writeRegularFile } from './regular-file.js';

export interface FileRequest {
  /** Absolute, already resolved inside the workspace. */
  path: string;
  /** How the model sees the path, for messages. */
  shown: string;
  signal: AbortSignal;
}

export interface WorkspaceFileAccess {
  /** The file's lines in order, without their line ends; refuses a binary file. */
  readLines(request: FileRequest): AsyncIterable<string>;
  /** The file's whole text as it is now (binary files are the caller's to refuse). */
  readText(request: FileRequest): Promise<string>;
  /** Replaces the file's content, creating the file; its folder exists. */
  writeText(request: FileRequest & { content: string }): Promise<void>;
}

/** Provided on an agent's scope to replace the local disk for that agent's file tools. */
export const workspaceFileAccessKey = serviceKey<WorkspaceFileAccess>('tools/file-access');

/** The scope's file access, else the local disk. */
export function fileAccessOf(execution: ToolExecution): WorkspaceFileAccess {
  return execution.context.find(workspaceFileAccessKey) ?? localFileAccess;
}

export function binaryFileError(shown: string, verb: 'read' | 'edited'): UserError {
  return new UserError(
    'INVALID_ARGUMENT',
    `${shown} is a binary file; it cannot be ${verb} as text` +
      (verb === 'read'
        ? ' (read_file gives PNG, JPEG, GIF and WebP files as images; this is none of those)'
        : ''),
  );
}

/** The binary rule of `is-binary-file.ts` for text already decoded. */
export function textLooksBinary(text: string): boolean {
  return text.slice(0, binaryProbeBytes).includes('\0');
}

export const localFileAccess: WorkspaceFileAccess = {
  async *readLines({ path, shown, signal }) {
    const handle = await openRegularFile(path, shown);
    let binary: boolean;
    try {
      binary = await startsBinary(handle);
    } catch (error) {
      await handle.close();
      throw error;
    }
    if (binary) {
      await handle.close();
      throw binaryFileError(shown, 'read');
    }
    // The stream closes the handle when it ends or is destroyed.
    const input = createReadStream('', { fd: handle, start: 0, encoding: 'utf8', signal });
    yield* createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  },
  async readText({ path, shown, signal }) {
    const handle = await openRegularFile(path, shown);
    try {
      // A NUL byte survives decoding, so `textLooksBinary` still sees it.
      return (await handle.readFile({ signal })).toString('utf8');
    } finally {
      await handle.close();
    }
  },
  async writeText({ path, shown, content, signal }) {
    await writeRegularFile(path, shown, content, signal);
  },
};

/** Files larger than this carry no `change` in their tool's metadata. */
export const maximumChangeBytes = 256 * 1024;

/**
 * What an edit changed, for a tool's metadata (a client shows it as a diff): the text before
 * (`null` for a new file) and after, or nothing when either is too large or binary.
 */
export function changeOf(
  before: string | null,
  after: string,
): { change?: { oldText: string | null; newText: string } } {
  const small = (text: string) =>
    Buffer.byteLength(text) <= maximumChangeBytes && !textLooksBinary(text);
  if (!small(after) || (before !== null && !small(before))) return {};
  return { change: { oldText: before, newText: after } };
}
