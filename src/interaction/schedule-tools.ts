/**
 * The model's schedule tools, given to root agents only: `schedule_create`, `schedule_list`,
 * `schedule_delete`. Each returns JSON. The bounds are checked by the service so every refusal
 * names the argument and the allowed range; the tools never touch a timer themselves.
 */
import { defineBuiltinTool } from '../core/builtin-tool.js';
import type { ToolDefinition, ToolExecution } from '../core/tool-contract.js';
import { MIN_EVERY_SECONDS } from './schedule-contract.js';
import { scheduleServiceKey } from './schedule-service.js';
import { scheduleView } from './schedule-text.js';

export const SCHEDULE_TOOL_NAMES = ['schedule_create', 'schedule_list', 'schedule_delete'] as const;

const serviceOf = (execution: ToolExecution) => execution.context.get(scheduleServiceKey);
const json = (value: unknown) => JSON.stringify(value);

export function scheduleTools(): ToolDefinition[] {
  const create = defineBuiltinTool({
    name: 'schedule_create',
    deferral: 'rare',
    summary: 'Set yourself a reminder that comes back as a message.',
    description: `Set yourself a reminder: at its time, the prompt comes back to you as a new message (it wakes you if you are idle). Give exactly one of after_seconds (once, that many seconds from now), at (once, an ISO 8601 time with its zone, such as 2026-12-01T09:00:00Z) or every_seconds (again and again, at least ${MIN_EVERY_SECONDS}). Schedules fire only while a process holds this session; one that falls due while none does is reported as missed, not run. Returns the schedule as JSON.`,
    arguments: (zod) =>
      zod.strictObject({
        prompt: zod.string().describe('What to tell yourself when it fires.'),
        after_seconds: zod.number().optional().describe('Fire once, this many seconds from now.'),
        at: zod.string().optional().describe('Fire once at this ISO 8601 time (with its zone).'),
        every_seconds: zod
          .number()
          .optional()
          .describe(`Fire every this many seconds (at least ${MIN_EVERY_SECONDS}).`),
      }),
    execute(args, execution) {
      const service = serviceOf(execution);
      const schedule = service.create({
        prompt: args.prompt,
        ...(args.after_seconds !== undefined ? { afterSeconds: args.after_seconds } : {}),
        ...(args.at !== undefined ? { at: args.at } : {}),
        ...(args.every_seconds !== undefined ? { everySeconds: args.every_seconds } : {}),
      });
      return json(scheduleView(schedule, service.now()));
    },
  });

  const list = defineBuiltinTool({
    name: 'schedule_list',
    deferral: 'rare',
    summary: "List this session's pending schedules.",
    description:
      'List this session\'s pending schedules, soonest first, as JSON: {"schedules": [{id, kind, prompt, due_at, due_in_seconds, every_seconds?}]}.',
    arguments: (zod) => zod.strictObject({}),
    concurrencySafe: true,
    execute(_args, execution) {
      const service = serviceOf(execution);
      const now = service.now();
      return json({ schedules: service.schedules.map((schedule) => scheduleView(schedule, now)) });
    },
  });

  const remove = defineBuiltinTool({
    name: 'schedule_delete',
    deferral: 'rare',
    summary: 'Delete a pending schedule.',
    description: 'Delete a pending schedule by its id (from schedule_create or schedule_list).',
    arguments: (zod) => zod.strictObject({ id: zod.string().describe('Such as schedule-1.') }),
    execute(args, execution) {
      const service = serviceOf(execution);
      const schedule = service.delete(args.id);
      return json({ deleted: scheduleView(schedule, service.now()) });
    },
  });

  return [create, list, remove];
}
