/**
 * `loom acp`: serves the Agent Client Protocol on standard input and output until the client
 * disconnects. Standard output carries protocol messages only: anything else that writes to it
 * is sent to standard error instead, and so are all logs.
 */
import { Readable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { serveAcp } from '../acp/server.js';
import { loomHome } from '../core/home.js';

export interface AcpOptions {
  model?: string;
}

/** A web stream over the real stdout; afterwards `process.stdout.write` goes to stderr. */
function claimStdout(): WritableStream<Uint8Array> {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  return new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) =>
        write(chunk, (error) => (error ? reject(error) : resolve())),
      ),
  });
}

export async function acpCommand(options: AcpOptions): Promise<number> {
  const output = claimStdout();
  const input = Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>;
  const model = options.model ?? process.env.LOOM_MODEL;
  const server = serveAcp({
    stream: ndJsonStream(output, input),
    home: loomHome(),
    ...(model ? { model } : {}),
  });
  const stop = (cause: string) => void server.shutdown(cause);
  process.once('SIGTERM', () => stop('loom acp was terminated'));
  process.once('SIGINT', () => stop('loom acp was interrupted'));
  await server.closed;
  await server.shutdown('the client disconnected');
  return 0;
}
