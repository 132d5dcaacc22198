/**
 * Test kit for the workflow engine: a fake subagent provider whose children a test holds open,
 * fails or completes (through the real SubagentRegistry), a recorder of the `workflow/*` events
 * with waits on them, and a service wired to both. Tests wait on these, never on time.
 */
import assert from 'node:assert/strict';
import { Context } from '../../src/core/context.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { addUsage, type Usage } from '../../src/llm/contract.js';
import type {
  EffortReport,
  SubagentActivity,
  SubagentProvider,
  SubagentResult,
  SubagentStartRequest,
} from '../../src/subagent/contract.js';
import { SubagentRegistry } from '../../src/subagent/registry.js';
import { checkPairs } from '../../src/testing/invariants.js';
import type {
  WorkflowEngineKind,
  WorkflowEventRecord,
  WorkflowLimits,
  WorkflowMeta,
  WorkflowResult,
  WorkflowRun,
  WorkflowStartRequest,
} from '../../src/workflow/contract.js';
import {
  WorkerWorkflowService,
  type WorkerWorkflowServiceOptions,
} from '../../src/workflow/host.js';
import { onWorkflowEvents } from '../../src/workflow/run-events.js';
import { deferred } from '../helpers/deferred.js';

export { deferred };

/** Resolves when `predicate` holds, checked now and after every `notify()`. */
class Waiters {
  private readonly list: Array<{ check: () => boolean; resolve: () => void }> = [];

  until(check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    const { promise, resolve } = deferred();
    this.list.push({ check, resolve });
    return promise;
  }

  notify(): void {
    for (const waiter of [...this.list]) {
      if (!waiter.check()) continue;
      this.list.splice(this.list.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}

export type FakeAnswer =
  | { output: string; structured?: unknown; usage?: Usage; effort?: EffortReport }
  | { error: string }
  | { fault: string };

export interface FakeChild {
  readonly id: string;
  readonly request: SubagentStartRequest;
  /** Set once `cancel()` was called or the request's signal aborted: the first reason. */
  cancelledBy: string | undefined;
  /** Which cancel channels reached the child: its run's `cancel()`, the request signal. */
  cancelledVia: Set<'cancel' | 'signal'>;
  disposed: boolean;
  settled: boolean;
  /** Tokens of the child's model requests so far (its result's usage). */
  readonly usage: Usage;
  answer(answer: FakeAnswer): void;
  /**
   * One finished model request of the running child: counted in its usage and, unless the
   * provider is `silent`, reported through the request's `onUsage` (model: the request's, else
   * `fake:default`).
   */
  report(usage: Usage, model?: string): void;
  /** Reports model activity through the request's `onActivity` (as the in-process provider does). */
  activity(kind: SubagentActivity): void;
}

export interface FakeProviderOptions {
  name?: string;
  /** Answers a child at once; `undefined` holds it until the test answers. May throw (start fails). */
  respond?: (request: SubagentStartRequest) => FakeAnswer | undefined;
  /** A wedged child notes a cancel but never settles because of it. */
  wedged?: (request: SubagentStartRequest) => boolean;
  /** Never calls `onUsage` (like the acp provider): only the result carries the usage. */
  silent?: boolean;
  /** Has no `activity` capability (like the acp provider): its children never stall. */
  noActivity?: boolean;
}

const zeroUsage = (): Usage => ({ input: 0, output: 0 });

export function fakeProvider(options: FakeProviderOptions = {}) {
  const children: FakeChild[] = [];
  const waiters = new Waiters();
  const provider: SubagentProvider = {
    name: options.name ?? 'fake',
    capabilities: {
      outputSchema: true,
      depthLimit: true,
      toolFilter: true,
      persona: true,
      inheritsParentContext: true,
      activity: !options.noActivity,
      workspace: true,
    },
    start(request) {
      const immediate = options.respond?.(request);
      const settle = deferred<SubagentResult>();
      const id = `child-${children.length + 1}`;
      const base = { sessionId: id };
      const child: FakeChild = {
        id,
        request,
        cancelledBy: undefined,
        cancelledVia: new Set(),
        disposed: false,
        settled: false,
        usage: zeroUsage(),
        report(usage, model) {
          // Cache tokens too, as a real child's running total (addUsage) keeps them.
          Object.assign(child.usage, addUsage(child.usage, usage));
          if (!options.silent) {
            request.onUsage?.({
              usage,
              model: model ?? request.model ?? request.defaultModel ?? 'fake:default',
            });
          }
        },
        activity(kind) {
          request.onActivity?.(kind);
        },
        answer(answer) {
          if (child.settled) return;
          if ('output' in answer && answer.usage) child.report(answer.usage);
          child.settled = true;
          if ('fault' in answer) settle.reject(new Error(answer.fault));
          else if ('error' in answer) {
            settle.resolve({
              ...base,
              output: '',
              stopReason: 'error',
              diagnostic: answer.error,
              usage: { ...child.usage },
            });
          } else {
            settle.resolve({
              ...base,
              output: answer.output,
              ...(answer.structured !== undefined ? { structured: answer.structured } : {}),
              ...(answer.effort ? { effort: answer.effort } : {}),
              stopReason: 'completed',
              usage: { ...child.usage },
            });
          }
          waiters.notify();
        },
      };
      const cancel = (reason: string, via: 'cancel' | 'signal') => {
        child.cancelledBy ??= reason;
        child.cancelledVia.add(via);
        waiters.notify();
        if (child.settled || options.wedged?.(request)) return;
        child.settled = true;
        settle.resolve({
          ...base,
          output: '',
          stopReason: 'cancelled',
          diagnostic: reason,
          usage: { ...child.usage },
        });
        waiters.notify();
      };
      const signal = request.signal;
      signal?.addEventListener(
        'abort',
        () => cancel(`signal: ${String(signal.reason)}`, 'signal'),
        {
          once: true,
        },
      );
      children.push(child);
      waiters.notify();
      if (immediate) child.answer(immediate);
      return {
        id,
        result: settle.promise,
        cancel: (reason) => cancel(reason ?? 'cancelled', 'cancel'),
        dispose: () => {
          child.disposed = true;
        },
      };
    },
  };
  return {
    provider,
    children,
    /** Resolves once `count` children have started. */
    started: (count: number) => waiters.until(() => children.length >= count),
    /** The child whose prompt matches, once it has started. */
    async child(pattern: RegExp): Promise<FakeChild> {
      let found: FakeChild | undefined;
      await waiters.until(() => {
        found = children.find((child) => pattern.test(child.request.prompt));
        return found !== undefined;
      });
      return found as FakeChild;
    },
    /** Resolves once every child has been cancelled through both channels. */
    allCancelled: () =>
      waiters.until(() => children.every((child) => child.cancelledVia.size === 2)),
  };
}

export interface EventRecorder {
  readonly records: WorkflowEventRecord[];
  of<Type extends WorkflowEventRecord['type']>(
    type: Type,
  ): Array<Extract<WorkflowEventRecord, { type: Type }>>;
  /** Resolves with the first record (past or future) that matches. */
  waitFor(match: (record: WorkflowEventRecord) => boolean): Promise<WorkflowEventRecord>;
  dispose(): void;
}

export function recordEvents(context: Context): EventRecorder {
  const records: WorkflowEventRecord[] = [];
  const waiters = new Waiters();
  const push = (record: WorkflowEventRecord) => {
    records.push(record);
    waiters.notify();
  };
  const stop = onWorkflowEvents(context, push);
  return {
    records,
    of<Type extends WorkflowEventRecord['type']>(type: Type) {
      return records.filter(
        (record): record is Extract<WorkflowEventRecord, { type: Type }> => record.type === type,
      );
    },
    async waitFor(match: (record: WorkflowEventRecord) => boolean): Promise<WorkflowEventRecord> {
      let found: WorkflowEventRecord | undefined;
      await waiters.until(() => {
        found = records.find(match);
        return found !== undefined;
      });
      return found as WorkflowEventRecord;
    },
    dispose: () => {
      stop();
    },
  };
}

/** Every way the agent-start/agent-end pairing of `records` is broken; empty when sound. */
export function pairViolations(records: readonly WorkflowEventRecord[]): string[] {
  const events = records.map(
    (record, index) =>
      ({
        type: record.type,
        seq: index + 1,
        time: record.time,
        data: record,
      }) as unknown as SessionEvent,
  );
  return checkPairs(events, {
    start: 'workflow/agent-start',
    end: 'workflow/agent-end',
    key: (event) => {
      const data = event.data as unknown as { runId: string; seq: number };
      return `${data.runId}#${data.seq}`;
    },
  });
}

export const testMeta: WorkflowMeta = { name: 'test', description: 'a test workflow' };

/**
 * The engine every `engine*.test.ts` runs on: `LOOM_TEST_WORKFLOW_ENGINE` (`worker` or
 * `isolated`), default `worker`; `npm run test:unit` runs those files once on each.
 */
export const testEngine: WorkflowEngineKind = readTestEngine(process.env.LOOM_TEST_WORKFLOW_ENGINE);

function readTestEngine(value: string | undefined): WorkflowEngineKind {
  if (value === undefined || value === '' || value === 'worker') return 'worker';
  if (value === 'isolated') return 'isolated';
  throw new Error(`LOOM_TEST_WORKFLOW_ENGINE must be worker or isolated, not ${value}`);
}

export interface EngineFixtureOptions extends FakeProviderOptions {
  limits?: Partial<WorkflowLimits>;
  /** More service options (home, cwd, resolveWorkflow…). */
  service?: Partial<Omit<WorkerWorkflowServiceOptions, 'context' | 'registry'>>;
}

export interface EngineFixture {
  context: Context;
  registry: SubagentRegistry;
  fake: ReturnType<typeof fakeProvider>;
  events: EventRecorder;
  service: WorkerWorkflowService;
  /** Starts `script` with the test meta and a root parent, plus any request fields given. */
  start(script: string, request?: Partial<WorkflowStartRequest>): WorkflowRun;
}

/** A service over the real registry with one fake provider, and the events it emits. */
export function engineFixture(options: EngineFixtureOptions = {}): EngineFixture {
  const context = new Context({ name: 'workflow-test' });
  const registry = new SubagentRegistry(context);
  const fake = fakeProvider(options);
  registry.register(fake.provider);
  const events = recordEvents(context);
  const service = new WorkerWorkflowService({
    context,
    registry,
    provider: fake.provider.name,
    // A fixed width, so tests do not depend on the machine's CPU count.
    limits: { maxConcurrentAgents: 4, ...options.limits },
    engine: testEngine,
    ...options.service,
  });
  const start = (script: string, request: Partial<WorkflowStartRequest> = {}) =>
    service.start({
      meta: testMeta,
      script,
      parent: { sessionId: null, delegationDepth: 0 },
      ...request,
    });
  return { context, registry, fake, events, service, start };
}

/** A child's answer that echoes its prompt in angle brackets. */
export const echoPrompt = (request: { prompt: string }) => ({ output: `<${request.prompt}>` });

/**
 * Awaits the run's result and asserts what every finished run must show: the agent-starts and
 * agent-ends pair up, the worker is gone, every run of the fixture has ended once (this one
 * exactly once) and a `workflow/end` is the last event.
 */
export async function settled(
  fixture: EngineFixture,
  run: Pick<WorkflowRun, 'id' | 'result'>,
): Promise<WorkflowResult> {
  const result = await run.result;
  assert.deepEqual(pairViolations(fixture.events.records), []);
  assert.equal(fixture.service.liveWorkers, 0, 'the worker has exited when the result settles');
  const ends = fixture.events.of('workflow/end');
  assert.equal(ends.length, fixture.events.of('workflow/start').length);
  assert.equal(ends.filter((end) => end.runId === run.id).length, 1);
  assert.equal(fixture.events.records.at(-1)?.type, 'workflow/end');
  return result;
}
