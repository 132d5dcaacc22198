/**
 * The file tools' content through the editor: `fs/read_text_file` and `fs/write_text_file` for
 * what the client advertised at `initialize` (so unsaved buffers are read and edits land in the
 * editor), the local disk for the rest. It only carries content: the tools have already checked
 * the path against the workspace and the permission rules before calling it.
 */
import type { AgentContext, FileSystemCapabilities } from '@agentclientprotocol/sdk';
import { errorMessage, LoomError } from '../base/errors.js';
import { binaryFileError, textLooksBinary } from '../tools/file-access.js';
import { localFileAccess, type WorkspaceFileAccess } from '../tools/index.js';
import { cancelledBy } from './editor-request.js';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap {
    /** The editor refused or failed a request made on a tool's behalf (a file, a terminal). */
    EDITOR_REQUEST: true;
  }
}

/** The client's file access for session `sessionId`; undefined when it offers neither method. */
export function clientFileAccess(
  client: AgentContext,
  sessionId: string,
  capabilities: FileSystemCapabilities | undefined,
): WorkspaceFileAccess | undefined {
  const reads = capabilities?.readTextFile === true;
  const writes = capabilities?.writeTextFile === true;
  if (!reads && !writes) return undefined;
  const readText: WorkspaceFileAccess['readText'] = async ({ path, shown, signal }) => {
    try {
      const { content } = await client.request(
        'fs/read_text_file',
        { sessionId, path },
        cancelledBy(signal),
      );
      return content;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw editorRefused('read', shown, error);
    }
  };
  return {
    readText: reads ? readText : localFileAccess.readText,
    readLines: reads
      ? async function* (request) {
          const text = await readText(request);
          if (textLooksBinary(text)) throw binaryFileError(request.shown, 'read');
          yield* linesOf(text);
        }
      : localFileAccess.readLines,
    writeText: writes
      ? async ({ path, shown, content, signal }) => {
          try {
            await client.request(
              'fs/write_text_file',
              { sessionId, path, content },
              cancelledBy(signal),
            );
          } catch (error) {
            if (signal.aborted) throw signal.reason;
            throw editorRefused('write', shown, error);
          }
        }
      : localFileAccess.writeText,
  };
}

/** Lines as `readline` splits them: at `\r\n`, `\r` or `\n`, with no empty last line. */
export function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function editorRefused(verb: 'read' | 'write', shown: string, error: unknown): LoomError {
  return new LoomError(
    'EDITOR_REQUEST',
    `the editor could not ${verb} ${shown}: ${errorMessage(error)}`,
    { cause: error },
  );
}
