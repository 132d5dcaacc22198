/**
 * Installs layer 3 into a runtime: one job service on the root scope (as the jobs service and as
 * core's background runner), and on every agent the runtime makes a controller for its notices,
 * the job tools, and its running jobs restated after a compaction (`agent/standing-state`). An
 * agent that closes takes its jobs with it; so does the process: at exit every unsettled job is
 * cancelled and logged as killed. It never leaves work running unowned.
 */

import { errorMessage } from '../base/errors.js';
import { backgroundRunnerKey } from '../core/background.js';
import type { Disposer } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { AgentRuntime } from '../core/runtime.js';
import { addSessionRepairer } from '../core/session-load.js';
import { addStandingState } from '../core/standing-state.js';
import { jobServiceKey } from './contract.js';
import { jobsStandingText } from './job-notice.js';
import type { JobLimits } from './job-settings.js';
import { LocalJobService } from './local-job-service.js';
import { agentController } from './owner-controller.js';
import { repairOpenJobs } from './session-repair.js';
import { jobTools } from './tools.js';

export interface JobsLayerOptions extends Partial<JobLimits> {
  /** Follow-up turns notices may start in a row without human input. Default 3. */
  maxConsecutiveWakes?: number;
  /** Cancel and log every unsettled job when the process exits. Default true. */
  killOnExit?: boolean;
}

export interface JobsLayer {
  service: LocalJobService;
  /** Kills every job without waiting, removes the tools, controllers and services; idempotent. */
  dispose: Disposer;
}

export function installJobs(runtime: AgentRuntime, options: JobsLayerOptions = {}): JobsLayer {
  const { maxConsecutiveWakes, killOnExit = true, ...limits } = options;
  const service = new LocalJobService({ context: runtime.root, ...limits });
  const agentSetups = new Set<Disposer>();

  const setUp = (handle: AgentHandle): Disposer => {
    const controller = agentController(
      handle,
      maxConsecutiveWakes !== undefined ? { maxConsecutiveWakes } : {},
    );
    const unregister = service.registerController(handle.agent.id, controller);
    const stopStanding = addStandingState(handle.context, handle.agent.id, () =>
      jobsStandingText(service.running(handle.agent.id), Date.now()),
    );
    const undo = () => {
      if (!agentSetups.delete(undo)) return;
      stopStanding();
      unregister();
      controller.dispose();
    };
    agentSetups.add(undo);
    return undo;
  };

  const onExit = () => {
    service.abandonAll('the process exited');
    for (const handle of runtime.liveAgents) {
      if (handle.log.closed) continue;
      try {
        handle.log.flush();
      } catch (error) {
        process.stderr.write(`loom: could not flush ${handle.log.path}: ${errorMessage(error)}\n`);
      }
    }
  };
  if (killOnExit) process.on('exit', onExit);

  const disposers: Disposer[] = [
    runtime.root.provide(jobServiceKey, service),
    runtime.root.provide(backgroundRunnerKey, service),
    runtime.onAgent(setUp),
    runtime.offerTools(jobTools(service)),
    addSessionRepairer(repairOpenJobs),
  ];
  let disposed = false;
  return {
    service,
    dispose() {
      if (disposed) return;
      disposed = true;
      process.off('exit', onExit);
      for (const undo of [...agentSetups]) undo();
      service.abandonAll('the jobs layer was removed');
      for (const dispose of disposers.reverse()) dispose();
    },
  };
}
