/**
 * The model's tools over its own background jobs: `job_output` (output since the last read, then
 * a `[status: …]` line; optionally waiting for the end first), `job_list` and `job_kill`. The
 * caller is always the calling agent, so a model can never reach another agent's jobs.
 */
import type { z } from 'zod';
import { defineBuiltinTool } from '../core/builtin-tool.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import type { JobService } from './contract.js';
import { listingLine, statusLine } from './job-notice.js';
import { isSettled } from './job-settings.js';

export const MAX_WAIT_MS = 600_000;
export const DEFAULT_WAIT_MS = 30_000;
/** Room beyond the longest wait for the read itself, so the pipeline's limit never cuts a wait. */
const WAIT_MARGIN_MS = 10_000;

const jobId = (zod: typeof z) =>
  zod.string().min(1).describe('The job id, such as bash-1, as given when it started.');

export function jobOutputTool(service: JobService): ToolDefinition {
  return defineBuiltinTool({
    name: 'job_output',
    deferral: 'rare',
    summary: "Read a background job's new output; can wait for it to end.",
    description:
      'Read what a background job printed since your last read of it, followed by a [status: …] line. With wait, first wait until the job ends or timeout_ms passes (a job still running then is not an error).',
    arguments: (zod) =>
      zod.strictObject({
        job_id: jobId(zod),
        wait: zod
          .boolean()
          .optional()
          .describe('Wait for the job to end before reading (default false).'),
        timeout_ms: zod
          .number()
          .int()
          .min(1)
          .max(MAX_WAIT_MS)
          .optional()
          .describe(
            `How long to wait at most, in milliseconds (default ${DEFAULT_WAIT_MS}); only used with wait.`,
          ),
      }),
    concurrencySafe: true,
    timeoutMs: MAX_WAIT_MS + WAIT_MARGIN_MS,
    async execute(args, execution) {
      const caller = execution.agentId;
      if (args.wait) {
        const timeout = args.timeout_ms ?? DEFAULT_WAIT_MS;
        await service.wait(args.job_id, caller, timeout, execution.signal);
      }
      const { output, record } = service.read(args.job_id, caller);
      const separator = output === '' || output.endsWith('\n') ? '' : '\n';
      return `${output}${separator}${statusLine(record)}`;
    },
  });
}

export function jobListTool(service: JobService): ToolDefinition {
  return defineBuiltinTool({
    name: 'job_list',
    deferral: 'rare',
    summary: 'List your background jobs.',
    description: 'List your background jobs: id, status, age and label, one a line.',
    arguments: (zod) => zod.strictObject({}),
    concurrencySafe: true,
    execute(_args, execution) {
      const records = service.list(execution.agentId);
      if (records.length === 0) return 'You have no background jobs.';
      const now = Date.now();
      return records.map((record) => listingLine(record, now)).join('\n');
    },
  });
}

export function jobKillTool(service: JobService): ToolDefinition {
  return defineBuiltinTool({
    name: 'job_kill',
    deferral: 'rare',
    summary: 'Stop one of your background jobs.',
    description:
      'Stop one of your background jobs and wait until it has stopped (one that has not stopped within a short grace is recorded as killed anyway). Reports its final status; read its last output with job_output.',
    arguments: (zod) =>
      zod.strictObject({
        job_id: jobId(zod),
        reason: zod.string().min(1).optional().describe('Why it is stopped; shown in its status.'),
      }),
    async execute(args, execution) {
      const before = service.get(args.job_id, execution.agentId);
      if (isSettled(before.status)) return `${before.id} was already ${before.status}.`;
      const after = await service.killAndWait(args.job_id, execution.agentId, {
        ...(args.reason !== undefined ? { reason: args.reason } : {}),
        signal: execution.signal,
      });
      if (!isSettled(after.status)) return `${after.id} was asked to stop and is still stopping.`;
      return `${after.id} has stopped. ${statusLine(after)}`;
    },
  });
}

export function jobTools(service: JobService): ToolDefinition[] {
  return [jobOutputTool(service), jobListTool(service), jobKillTool(service)];
}
