/**
 * `loom acp`: serves the Agent Client Protocol on standard input and output until the client
 * disconnects. Standard output carries protocol messages only: anything else that writes to it
 * is sent to standard error instead, and so are all logs. SIGINT, SIGTERM and SIGHUP shut it
 * down (exit 130/143/129; a second signal closes the open turns in their logs and exits at once).
 */
import { Readable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { serveAcp } from '../acp/server.js';
import { loomHome } from '../core/home.js';
import { onStdoutClosed } from './standard-output.js';
import { describeStopSignal, handleStopSignals, SIGNAL_EXIT_CODES } from './stop-signals.js';

export interface AcpOptions {
  /** `--model`; without it each session's runtime chooses as every command does. */
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
  const server = serveAcp({
    stream: ndJsonStream(output, input),
    home: loomHome(),
    ...(options.model !== undefined ? { model: options.model } : {}),
  });
  const signals = handleStopSignals({
    graceful: (signal) => void server.shutdown(`loom acp stopped: ${describeStopSignal(signal)}`),
    forced: (cause) =>
      server.abandon(
        cause === 'output-closed' ? 'the client disconnected' : describeStopSignal(cause),
      ),
  });
  const stopWatchingOutput = onStdoutClosed(
    () => void server.shutdown('the client closed its end of the connection'),
  );
  await server.closed;
  await server.shutdown('the client disconnected');
  stopWatchingOutput();
  signals.finish();
  return signals.received ? SIGNAL_EXIT_CODES[signals.received] : 0;
}
