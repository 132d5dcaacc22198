/**
 * `loom worker --provider NAME`: takes the children a queue provider queues and runs each with the
 * in-process spawn provider in this machine's checkout, until SIGINT or SIGTERM (then it stops
 * taking jobs, lets running children end within a grace, hands the rest back, and exits 130/143).
 * `loom worker status`: the queue's depth, its workers and running children. Exit 2 for a bad
 * provider, flag or missing Redis variable; 1 when Redis cannot be reached. Never prints the URL.
 */
import { resolve } from 'node:path';
import { errorMessage, LoomError, UserError } from '../base/errors.js';
import { loadConfig } from '../config/load-config.js';
import { loomHome } from '../core/home.js';
import { type ChildWorker, startChildWorker } from '../queue/child-worker.js';
import type { QueueProviderConfig } from '../queue/contract.js';
import { queueProviderOf } from '../queue/provider-lookup.js';
import { type QueueStatus, readQueueStatus } from '../queue/queue-status.js';
import { redisTargetOf } from '../queue/redis-connection.js';
import { describeRevision } from '../queue/workspace-revision.js';
import { buildRuntime, type LoomSetup } from './build-runtime.js';
import { configCredentials } from './config-credentials.js';
import { interruptLiveSessions } from './interrupt-sessions.js';
import { redactOutputWith } from './output-redaction.js';
import { plainTable } from './plain-table.js';
import { describeStopSignal, handleStopSignals, SIGNAL_EXIT_CODES } from './stop-signals.js';

export interface WorkerOptions {
  provider?: string;
  concurrency?: string;
  cwd?: string;
  anyRevision?: boolean;
  model?: string;
}

export interface WorkerStatusOptions {
  provider?: string;
  cwd?: string;
  json?: boolean;
}

const MAX_CONCURRENCY = 256;

function parseConcurrency(text: string | undefined): number {
  if (text === undefined) return 1;
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || value < 1 || value > MAX_CONCURRENCY) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `--concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}, not ${JSON.stringify(text)}`,
    );
  }
  return value;
}

/** The provider named by `--provider`, checked with its Redis variable before anything starts. */
function chosenProvider(
  provider: string | undefined,
  cwd: string,
): { name: string; config: QueueProviderConfig } {
  if (provider === undefined || provider.trim() === '') {
    throw new UserError(
      'INVALID_ARGUMENT',
      '--provider NAME is needed (a queue provider of config)',
    );
  }
  const loaded = loadConfig(loomHome(), cwd);
  redactOutputWith(configCredentials(loaded, []));
  const config = queueProviderOf(loaded, provider);
  try {
    redisTargetOf(provider, config, process.env);
  } catch (error) {
    // A missing variable is a usage mistake: exit 2, as for a bad option.
    throw new UserError('QUEUE_UNAVAILABLE', errorMessage(error));
  }
  return { name: provider, config };
}

function reportFailure(error: unknown): number {
  const prefix = error instanceof LoomError ? `${error.code}: ` : '';
  process.stderr.write(`loom: ${prefix}${errorMessage(error)}\n`);
  return error instanceof UserError ? 2 : 1;
}

export async function workerCommand(options: WorkerOptions): Promise<number> {
  const cwd = resolve(options.cwd ?? process.cwd());
  let setup: LoomSetup;
  let provider: { name: string; config: QueueProviderConfig };
  let concurrency: number;
  try {
    provider = chosenProvider(options.provider, cwd);
    concurrency = parseConcurrency(options.concurrency);
    setup = buildRuntime({
      cwd,
      home: loomHome(),
      ...(options.model !== undefined ? { model: options.model } : {}),
    });
  } catch (error) {
    return reportFailure(error);
  }
  const dispose = async () => {
    setup.workflow.dispose();
    setup.subagents.dispose();
    await setup.mcp.dispose();
  };
  // The children get the MCP servers' tools; a failed server is reported on stderr.
  await setup.mcp.ready();
  let worker: ChildWorker;
  try {
    worker = await startChildWorker({
      name: provider.name,
      config: provider.config,
      registry: setup.subagents.services.registry,
      cwd,
      concurrency,
      anyRevision: options.anyRevision === true,
    });
  } catch (error) {
    await dispose();
    return reportFailure(error);
  }
  let stopped!: () => void;
  const stopping = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  const signals = handleStopSignals({
    graceful(signal) {
      const running = worker.running().length;
      process.stderr.write(
        `loom: worker stopping, ${describeStopSignal(signal)}: no new jobs, ${running} running (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to exit at once)\n`,
      );
      void worker
        .stop()
        .catch((error: unknown) =>
          process.stderr.write(`loom: the worker did not stop cleanly: ${errorMessage(error)}\n`),
        )
        .finally(stopped);
    },
    forced(cause) {
      interruptLiveSessions(
        setup,
        cause === 'output-closed'
          ? 'standard output was closed'
          : `the worker was stopped at once (${describeStopSignal(cause)})`,
      );
    },
  });
  process.stderr.write(
    `loom: worker ready: queue ${worker.queue}, ${concurrency} at once, revision ${describeRevision(worker.revision)}${options.anyRevision ? ' (any revision accepted)' : ''}, as ${worker.workerName}\n`,
  );
  await stopping;
  signals.finish();
  await dispose();
  process.stderr.write('loom: worker stopped\n');
  return signals.received ? SIGNAL_EXIT_CODES[signals.received] : 0;
}

function formatAge(milliseconds: number | undefined): string {
  if (milliseconds === undefined) return '-';
  const seconds = milliseconds / 1000;
  return seconds < 120 ? `${seconds.toFixed(1)} s` : `${Math.round(seconds / 60)} min`;
}

export function formatQueueStatus(status: QueueStatus): string {
  const { counts } = status;
  const lines = [
    `queue ${status.queue}: ${counts.waiting} waiting, ${counts.active} active, ${counts.delayed} delayed, ${counts.completed} completed, ${counts.failed} failed\n`,
  ];
  lines.push(
    status.workers.length === 0
      ? 'workers: none connected\n'
      : `workers:\n${plainTable(
          ['WORKER', 'ADDRESS', 'CONNECTED'],
          status.workers.map((worker) => [
            worker.name,
            worker.address ?? '-',
            formatAge(worker.ageSeconds === undefined ? undefined : worker.ageSeconds * 1000),
          ]),
        )}`,
  );
  lines.push(
    status.running.length === 0
      ? 'running children: none\n'
      : `running children:\n${plainTable(
          ['JOB', 'WORKER', 'AGE', 'RUN', 'LABEL'],
          status.running.map((child) => [
            child.jobId,
            child.worker ?? '-',
            formatAge(child.ageMs),
            child.runId ?? '-',
            child.label || '-',
          ]),
        )}`,
  );
  return lines.join('');
}

export async function workerStatusCommand(options: WorkerStatusOptions): Promise<number> {
  try {
    const cwd = resolve(options.cwd ?? process.cwd());
    const provider = chosenProvider(options.provider, cwd);
    const status = await readQueueStatus(provider.name, provider.config, process.env);
    process.stdout.write(options.json ? `${JSON.stringify(status)}\n` : formatQueueStatus(status));
    return 0;
  } catch (error) {
    return reportFailure(error);
  }
}
