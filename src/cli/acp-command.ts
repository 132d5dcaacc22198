/**
 * `loom acp`: serves the Agent Client Protocol on standard input and output until the client
 * disconnects. Standard output carries protocol messages only: anything else that writes to it
 * is sent to standard error instead, and so are all logs. SIGINT, SIGTERM and SIGHUP shut it
 * down (exit 130/143/129; a second signal closes the open turns in their logs and exits at once).
 * `--cwd` is the folder it works from; a chosen model that cannot work (a malformed spec, an
 * unknown route) is refused at start, exit 2, not at the first session.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { serveAcp } from '../acp/server.js';
import { UserError } from '../base/errors.js';
import { loadConfig } from '../config/load-config.js';
import { modelRoutes } from '../context/model-routes.js';
import { loomHome } from '../core/home.js';
import { parseModelSpec } from '../llm/model-spec.js';
import { blameModelSource, chooseModel, MODEL_VARIABLE } from './choose-model.js';
import { onStdoutClosed } from './standard-output.js';
import { describeStopSignal, handleStopSignals, SIGNAL_EXIT_CODES } from './stop-signals.js';

export interface AcpOptions {
  /** `--model`; without it each session's runtime chooses as every command does. */
  model?: string;
  /** `--cwd`: the folder to work from (its `.loom/config.yaml` is read); default the current one. */
  cwd?: string;
}

/**
 * Moves to `--cwd` and checks the model a session would get by default, when one is chosen
 * (without any, each session still reports the four ways to choose one). Throws a UserError.
 */
function prepareStart(options: AcpOptions): void {
  if (options.cwd !== undefined) {
    const folder = resolve(options.cwd);
    if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
      throw new UserError('INVALID_ARGUMENT', `--cwd ${options.cwd} is not a folder`);
    }
    process.chdir(folder);
  }
  const config = loadConfig(loomHome(), process.cwd());
  const fromEnvironment = process.env[MODEL_VARIABLE]?.trim();
  if (options.model === undefined && !fromEnvironment && config.model === undefined) return;
  const choice = chooseModel({
    ...(options.model !== undefined ? { flag: options.model } : {}),
    env: process.env,
    ...(config.model !== undefined ? { configModel: config.model } : {}),
  });
  try {
    parseModelSpec(choice.spec, modelRoutes(config.models));
  } catch (error) {
    throw blameModelSource(choice, error);
  }
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
  try {
    prepareStart(options);
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    process.stderr.write(`loom acp: could not start: ${error.message}\n`);
    return 2;
  }
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
