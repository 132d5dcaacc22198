/**
 * Helpers for job tests: a fake producer the test settles by hand (its output, its cancel calls,
 * its outcome), a controller that records what it was told, and a runtime with the jobs layer
 * over a scripted model. Nothing here waits on time: tests wait on events.
 */

import type { BackgroundOutcome } from '../../src/core/background.js';
import type { AgentHandle } from '../../src/core/create-agent.js';
import type { AgentRuntime } from '../../src/core/runtime.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import type { BackgroundWork, JobController, JobRecord } from '../../src/jobs/contract.js';
import { installJobs, type JobsLayer, type JobsLayerOptions } from '../../src/jobs/install.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import { deferred } from '../core/agent-fixture.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

export interface FakeJob {
  work: BackgroundWork;
  /** Ids `run` was called with. */
  readonly runs: string[];
  /** Reasons `cancel` was called with. */
  readonly cancels: Array<string | undefined>;
  /** Output the next `readOutput()` hands over. */
  print(text: string): void;
  finish(outcome?: Partial<BackgroundOutcome>): void;
  reject(error: unknown): void;
  /**
   * The job's `done`, settled by `finish`/`reject`. Read after `run`, it is the positive signal
   * that the service has reacted: its own reaction to `done` was registered first, at `run`.
   */
  readonly settled: Promise<unknown>;
}

export interface FakeJobOptions {
  owner: string;
  kind?: string;
  label?: string;
  outputLimitBytes?: number;
  /** `run` throws this instead of starting. */
  failToStart?: Error;
  /** Without `readOutput` (work with no streamed output). */
  silent?: boolean;
  /** Settles as killed as soon as it is cancelled, like a well-behaved producer. */
  settleOnCancel?: boolean;
}

export function fakeJob(options: FakeJobOptions): FakeJob {
  const runs: string[] = [];
  const cancels: Array<string | undefined> = [];
  let pending = '';
  let settle: ((outcome: BackgroundOutcome) => void) | undefined;
  let fail: ((error: unknown) => void) | undefined;
  const done = new Promise<BackgroundOutcome>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  const work: BackgroundWork = {
    kind: options.kind ?? 'fake',
    label: options.label ?? 'a fake job',
    owner: options.owner,
    ...(options.outputLimitBytes !== undefined
      ? { outputLimitBytes: options.outputLimitBytes }
      : {}),
    run(id) {
      if (options.failToStart) throw options.failToStart;
      runs.push(id);
      const readOutput = () => {
        const text = pending;
        pending = '';
        return text;
      };
      return {
        cancel(reason) {
          cancels.push(reason);
          if (options.settleOnCancel) settle?.({ status: 'killed', summary: 'cancelled' });
        },
        done,
        ...(options.silent ? {} : { readOutput }),
      };
    },
  };
  return {
    work,
    runs,
    cancels,
    print(text) {
      pending += text;
    },
    finish(outcome = {}) {
      settle?.({ status: 'completed', summary: 'exit 0', ...outcome });
    },
    reject(error) {
      fail?.(error);
    },
    get settled() {
      return done.then(
        () => undefined,
        () => undefined,
      );
    },
  };
}

export interface Delivery {
  record: JobRecord;
  notice: string;
}

export function recordingController(): JobController & {
  deliveries: Delivery[];
  next(): Promise<Delivery>;
} {
  const deliveries: Delivery[] = [];
  const waiters: Array<(delivery: Delivery) => void> = [];
  return {
    deliveries,
    deliver(record, notice) {
      const delivery = { record, notice };
      deliveries.push(delivery);
      waiters.shift()?.(delivery);
    },
    next() {
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}

export interface JobsRuntimeFixture {
  runtime: AgentRuntime;
  layer: JobsLayer;
  root: AgentHandle;
  rootId: string;
  /** Resolves at the `count`-th event (past or future) of the log that matches. */
  waitForEvent(
    handle: AgentHandle,
    match: (event: SessionEvent) => boolean,
    count?: number,
  ): Promise<SessionEvent>;
  close(): Promise<void>;
}

export function jobsRuntime(
  model: ScriptedModelFile,
  options: JobsLayerOptions & { tools?: Parameters<AgentHandle['tools']['register']>[0][] } = {},
): JobsRuntimeFixture {
  const home = temporaryFolder('loom-jobs-');
  const client = createScriptedModel(model, { name: 'test' });
  const runtime = runtimeOver(client, home);
  const { tools = [], ...layerOptions } = options;
  const undoTools = runtime.onAgent((handle) => {
    const undo = tools.map((tool) => handle.tools.register(tool));
    return () => {
      for (const dispose of undo) dispose();
    };
  });
  const layer = installJobs(runtime, { killOnExit: false, ...layerOptions });
  const root = runtime.start();
  return {
    runtime,
    layer,
    root,
    rootId: root.agent.id,
    waitForEvent(handle, match, count = 1) {
      const earlier = handle.log.events.filter(match);
      const found = earlier[count - 1];
      if (found) return Promise.resolve(found);
      let seen = earlier.length;
      const arrival = deferred<SessionEvent>();
      const stop = handle.log.onAppend((event) => {
        if (!match(event) || ++seen < count) return;
        stop();
        arrival.resolve(event);
      });
      return arrival.promise;
    },
    async close() {
      const live = runtime.liveAgents;
      for (const handle of live) handle.close();
      await Promise.all(live.map((handle) => handle.agent.whenIdle()));
      layer.dispose();
      undoTools();
    },
  };
}
