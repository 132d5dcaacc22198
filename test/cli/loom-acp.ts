/**
 * `bin/loom acp` as a test's ACP peer: the NDJSON stream over a started process's stdio, and a
 * whole client session (spawn, connect, run the test's requests, expect exit 0) with the session
 * updates it received collected in an update log.
 */
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import {
  type EditorHandlers,
  recordingUpdates,
  testClient,
  type UpdateLog,
  updateLog,
} from '../helpers/acp-client.js';
import { type LoomRun, startLoom } from './loom-process.js';

export type PermissionAnswer = (
  request: acp.RequestPermissionRequest,
) => acp.RequestPermissionResponse;

/** The protocol stream over a `loom acp` process's standard input and output. */
export function loomAcpStream(loom: LoomRun): acp.Stream {
  return acp.ndJsonStream(
    Writable.toWeb(loom.child.stdin),
    Readable.toWeb(loom.child.stdout) as ReadableStream<Uint8Array>,
  );
}

/** Spawns `loom acp` and runs `op` as an ACP client over its stdio; the child must exit 0 after. */
export async function withLoomAcp<T>(
  options: {
    home: string;
    model: string;
    permission?: PermissionAnswer;
    editor?: EditorHandlers;
    /** Gets each update as the SDK's client parsed it. */
    parsed?: UpdateLog;
  },
  op: (agent: acp.ClientContext, log: UpdateLog) => Promise<T>,
): Promise<T> {
  const loom = startLoom(['acp', '--model', `scripted:${options.model}`], {
    home: options.home,
    keepStdinOpen: true,
  });
  const log = updateLog();
  const client = testClient(options);
  try {
    return await client.connectWith(recordingUpdates(loomAcpStream(loom), log), (agent) =>
      op(agent, log),
    );
  } finally {
    if (!loom.child.stdin.writableEnded) loom.child.stdin.end();
    const { code } = await loom.exited;
    assert.equal(code, 0, loom.stderr());
  }
}
