/**
 * Puts a workspace's hooks at the agent's events, on the runtime's root scope so every agent
 * (children too) has them: PreToolUse in `tools/pre-execute` (installed before the permission
 * rules, so a hook sees every call: a block denies, `approve` skips an ask but never a deny
 * rule), PostToolUse in `tools/post-execute` (a block's reason and any context join the result
 * the model sees), UserPromptSubmit and SessionStart's context at `agent/turn-starting` (root
 * agents' human prompts; a block refuses the prompt), Stop (root) and SubagentStop (children)
 * at `agent/turn-continuing` (a block keeps the agent going with the reason), PreCompact at
 * `agent/compacting`, Notification at `agent/asks-user`. Without hooks it installs nothing.
 * A hook of a closed agent is killed.
 */
import { assertNever } from '../base/errors.js';
import type { HooksConfig } from '../config/schema.js';
import {
  agentAsksUser,
  agentCompacting,
  agentTurnContinuing,
  agentTurnStarting,
  type TurnAdmission,
  type TurnMessage,
} from '../core/agent-hooks.js';
import { type Disposer, disposeAll } from '../core/context.js';
import { credentialVariablesKey } from '../core/credential-variables.js';
import type { AgentRuntime } from '../core/runtime.js';
import type { SessionLog } from '../core/session-log.js';
import {
  type PreExecuteDecision,
  type ToolCallRequest,
  toolPostExecute,
  toolPreExecute,
} from '../core/tool-pipeline.js';
import { HOOK_SOURCE } from './hook-contract.js';
import type { HookVerdict } from './hook-outcome.js';
import { toolInputFor, toolNameFor, toolNamesFor, toolResponseFor } from './hook-payload.js';
import { HookRunner } from './hook-runner.js';
import { claudeHooks, configHooks } from './hook-settings.js';

export interface HookSettings {
  /** Config `hooks:` (both config files'), if any. */
  config: HooksConfig | undefined;
  /** The workspace: where `.claude/settings.json` is read and hooks run. */
  workspace: string;
}

/** Reads the hooks (a bad file throws a UserError) and installs them; the undo removes them all. */
export function installHooks(runtime: AgentRuntime, settings: HookSettings): Disposer {
  const groups = [
    ...configHooks(settings.config, 'config.yaml'),
    ...claudeHooks(settings.workspace),
  ];
  if (groups.length === 0) return () => {};
  const runner = new HookRunner({
    groups,
    workspace: settings.workspace,
    credentials: () => runtime.root.find(credentialVariablesKey),
  });
  return new InstalledHooks(runtime, runner, settings.workspace).install();
}

interface AgentState {
  log: SessionLog;
  depth: number;
  /** Aborts when the agent closes: its hooks are killed. */
  closed: AbortController;
  /** Its SessionStart hooks, until the first turn has taken their context. */
  sessionStart?: Promise<HookVerdict>;
}

class InstalledHooks {
  private readonly agents = new Map<string, AgentState>();

  constructor(
    private readonly runtime: AgentRuntime,
    private readonly runner: HookRunner,
    private readonly workspace: string,
  ) {}

  install(): Disposer {
    const { root } = this.runtime;
    const runner = this.runner;
    return disposeAll([
      this.runtime.onAgent((handle) => this.opened(handle.log)),
      root.use(toolPreExecute, (request, next) => this.preToolUse(request, next)),
      root.use(toolPostExecute, async (observation, next) => {
        const result = await next(observation);
        const { execution } = observation;
        const agent = this.agents.get(execution.agentId);
        if (!agent || !runner.has('PostToolUse')) return result;
        const verdict = await runner.run({
          event: 'PostToolUse',
          log: agent.log,
          tool: execution.name,
          subject: (origin) => toolNamesFor(origin, execution.name),
          fields: (origin) => {
            const input = toolInputFor(origin, execution.name, execution.arguments, this.workspace);
            return {
              tool_name: toolNameFor(origin, execution.name),
              tool_input: input,
              tool_response: toolResponseFor(origin, execution.name, input, result),
              tool_use_id: execution.callId,
            };
          },
          signals: [execution.signal, agent.closed.signal],
        });
        const notes = [
          verdict.decision === 'block' ? `PostToolUse hook feedback:\n${verdict.reason}` : '',
          verdict.context ?? '',
        ].filter((note) => note !== '');
        if (notes.length === 0) return result;
        return { ...result, content: [result.content, ...notes].join('\n\n') };
      }),
      root.handle(agentTurnStarting, (input, admission) =>
        this.turnStarting(input.agentId, admission, input.signal),
      ),
      root.handle(agentTurnContinuing, async (input, continuation) => {
        const agent = this.agents.get(input.agentId);
        if (continuation !== undefined || !agent) return continuation;
        const event = agent.depth === 0 ? 'Stop' : 'SubagentStop';
        if (!runner.has(event)) return undefined;
        const verdict = await runner.run({
          event,
          log: agent.log,
          fields: () => ({ stop_hook_active: input.continued > 0 }),
          signals: [input.signal, agent.closed.signal],
        });
        if (verdict.decision !== 'block') return undefined;
        return { text: `${event} hook feedback:\n${verdict.reason}`, source: HOOK_SOURCE };
      }),
      root.handle(agentCompacting, async (input) => {
        const agent = this.agents.get(input.agentId);
        if (!agent || !runner.has('PreCompact')) return undefined;
        // Claude Code knows `manual` and `auto`; a compaction after an overflow is automatic.
        const claudeTrigger = input.trigger === 'manual' ? 'manual' : 'auto';
        await runner.run({
          event: 'PreCompact',
          log: agent.log,
          subject: (origin) =>
            origin === 'claude' ? [claudeTrigger, input.trigger] : [input.trigger],
          fields: (origin) => ({
            trigger: origin === 'claude' ? claudeTrigger : input.trigger,
            custom_instructions: input.instructions ?? '',
          }),
          signals: [input.signal, agent.closed.signal],
        });
        return undefined;
      }),
      root.on(agentAsksUser, async (payload) => {
        const agent = this.agents.get(payload.agentId);
        if (!agent || agent.depth > 0 || !runner.has('Notification')) return;
        await runner.run({
          event: 'Notification',
          log: agent.log,
          fields: () => ({
            message: payload.message,
            notification_type:
              payload.kind === 'approval' ? 'permission_prompt' : 'elicitation_dialog',
          }),
          signals: [agent.closed.signal],
        });
      }),
    ]);
  }

  /** Tracks a new agent; a root agent's SessionStart hooks start now. */
  private opened(log: SessionLog): Disposer {
    const id = log.header.sessionId;
    const agent: AgentState = {
      log,
      depth: log.header.delegationDepth,
      closed: new AbortController(),
    };
    this.agents.set(id, agent);
    if (agent.depth === 0 && this.runner.has('SessionStart')) {
      const source = log.events.some((event) => event.type === 'turn/start') ? 'resume' : 'startup';
      agent.sessionStart = this.runner.run({
        event: 'SessionStart',
        log,
        subject: () => [source],
        fields: () => ({ source }),
        signals: [agent.closed.signal],
      });
    }
    return () => {
      agent.closed.abort(new Error('the agent was closed'));
      if (this.agents.get(id) === agent) this.agents.delete(id);
    };
  }

  /** A block denies; `ask` asks unless a rule denies; `approve` turns a rule's ask into allow. */
  private async preToolUse(
    request: ToolCallRequest,
    next: (request: ToolCallRequest) => Promise<PreExecuteDecision>,
  ): Promise<PreExecuteDecision> {
    const agent = this.agents.get(request.agentId);
    if (!agent || !this.runner.has('PreToolUse')) return next(request);
    const verdict = await this.runner.run({
      event: 'PreToolUse',
      log: agent.log,
      tool: request.name,
      subject: (origin) => toolNamesFor(origin, request.name),
      fields: (origin) => ({
        tool_name: toolNameFor(origin, request.name),
        tool_input: toolInputFor(origin, request.name, request.arguments, this.workspace),
        tool_use_id: request.callId,
      }),
      signals: [request.signal, agent.closed.signal],
    });
    switch (verdict.decision) {
      case 'block':
        return { action: 'deny', reason: `a PreToolUse hook blocked it: ${verdict.reason}` };
      case 'ask': {
        const decided = await next(request);
        if (decided.action === 'deny') return decided;
        return { action: 'ask', reason: `a PreToolUse hook asks: ${verdict.reason ?? 'approve?'}` };
      }
      case 'approve': {
        const decided = await next(request);
        return decided.action === 'ask' ? { action: 'allow' } : decided;
      }
      case 'none':
      case 'warning':
        return next(request);
      default:
        return assertNever(verdict.decision, 'hook decision');
    }
  }

  /** The turn's messages with the hooks' context, or the refusal of a UserPromptSubmit hook. */
  private async turnStarting(
    agentId: string,
    admission: TurnAdmission,
    signal: AbortSignal,
  ): Promise<TurnAdmission> {
    const agent = this.agents.get(agentId);
    if (admission.kind !== 'start' || !agent || agent.depth > 0) return admission;
    const added: TurnMessage[] = [];
    if (agent.sessionStart) {
      const started = await agent.sessionStart;
      agent.sessionStart = undefined;
      if (started.context) added.push(hookContext(started.context));
    }
    const messages: TurnMessage[] = [...added];
    for (const message of admission.messages) {
      messages.push(message);
      const human = message.source === undefined && message.delivery === 'followup';
      if (!human || !this.runner.has('UserPromptSubmit')) continue;
      const verdict = await this.runner.run({
        event: 'UserPromptSubmit',
        log: agent.log,
        fields: () => ({ prompt: message.text }),
        signals: [signal, agent.closed.signal],
      });
      if (verdict.decision === 'block') {
        return {
          kind: 'refused',
          error: {
            code: 'HOOK_BLOCKED',
            message: `a UserPromptSubmit hook refused the prompt: ${verdict.reason}`,
          },
        };
      }
      if (verdict.context) messages.push(hookContext(verdict.context));
    }
    return { kind: 'start', messages };
  }
}

function hookContext(text: string): TurnMessage {
  return { text, delivery: 'inject', source: HOOK_SOURCE };
}
