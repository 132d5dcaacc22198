/**
 * Where the agent reaches the person at the terminal: permission asks and user questions become
 * pending requests, shown one at a time, oldest first. "Yes, always" adds an allow rule for the
 * rest of this session (the same tool, and for `bash` the same command line, compared exactly
 * after collapsing whitespace, never as a pattern), which the asker consults before asking
 * again. A request whose turn is cancelled leaves the queue at once. It never allows a call
 * that no rule asked about: it only answers asks.
 */
import { SHELL_COMMAND_ARGUMENT, SHELL_TOOL } from '../config/permissions.js';
import type { PermissionRule } from '../config/schema.js';
import { normaliseWhitespace } from '../config/shell-commands.js';
import type { Disposer } from '../core/context.js';
import type { PermissionAnswer, PermissionAsker } from '../core/tool-execution.js';
import type { UserAnswerer, UserReply } from '../interaction/user-questions.js';
import type { PendingRequest } from './contract.js';

type Listener = () => void;

export class InteractionBroker {
  private readonly queue: PendingRequest[] = [];
  private readonly sessionRules: PermissionRule[] = [];
  private readonly listeners = new Set<Listener>();
  private readonly ruleListeners = new Set<(rule: PermissionRule) => void>();
  private sequence = 0;

  /** The request the person answers now. */
  get current(): PendingRequest | undefined {
    return this.queue[0];
  }

  /** The calls whose approval is asked or queued to be asked. */
  get awaitingCalls(): ReadonlySet<string> {
    const calls = new Set<string>();
    for (const request of this.queue) if (request.kind === 'approval') calls.add(request.callId);
    return calls;
  }

  /** The allow rules "yes, always" added, oldest first. */
  get rules(): readonly PermissionRule[] {
    return this.sessionRules;
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called with each rule "yes, always" adds (the terminal says what was added). */
  onRuleAdded(listener: (rule: PermissionRule) => void): Disposer {
    this.ruleListeners.add(listener);
    return () => this.ruleListeners.delete(listener);
  }

  /** Forgets the session rules: a new or reopened session starts asking again. */
  clearRules(): void {
    this.sessionRules.length = 0;
  }

  /** Whether a "yes, always" of this session already covers the call. */
  allows(tool: string, args: unknown): boolean {
    const wanted = ruleFor(tool, args);
    const command = wanted.match?.[SHELL_COMMAND_ARGUMENT];
    return this.sessionRules.some(
      (rule) => rule.tool === tool && rule.match?.[SHELL_COMMAND_ARGUMENT] === command,
    );
  }

  /** Names the agent behind an ask when it is not the session's own (set by the session). */
  describeAsker: (agentId: string) => string | undefined = () => undefined;

  readonly asker: PermissionAsker = {
    ask: ({ call, reason, signal }) => {
      if (this.allows(call.name, call.arguments)) return Promise.resolve(true);
      const from = this.describeAsker(call.agentId);
      return new Promise<PermissionAnswer>((resolve, reject) => {
        const request: PendingRequest = {
          kind: 'approval',
          id: `ask-${++this.sequence}`,
          callId: call.callId,
          ...(from !== undefined ? { from } : {}),
          tool: call.name,
          arguments: call.arguments,
          reason,
          resolve: (answer) => {
            if (!this.remove(request)) return;
            if (answer.decision === 'always') this.addRule(ruleFor(call.name, call.arguments));
            if (answer.decision === 'no')
              resolve({ approved: false, feedback: answer.reason ?? '' });
            else resolve(true);
          },
        };
        this.enqueue(request, signal, reject);
      });
    },
  };

  readonly answerer: UserAnswerer = {
    answer: (request, options) =>
      new Promise<UserReply>((resolve, reject) => {
        const id = `question-${++this.sequence}`;
        const pending: PendingRequest =
          request.intent === 'questions'
            ? {
                kind: 'questions',
                id,
                questions: request.questions,
                resolve: (answers) => {
                  if (this.remove(pending)) resolve({ intent: 'questions', answers });
                },
              }
            : {
                kind: 'plan-review',
                id,
                plan: request.plan,
                resolve: (review) => {
                  if (this.remove(pending)) resolve({ intent: 'plan-review', ...review });
                },
              };
        this.enqueue(pending, options.signal, reject);
      }),
  };

  private addRule(rule: PermissionRule): void {
    if (this.allows(rule.tool, rule.match)) return;
    this.sessionRules.push(rule);
    for (const listener of [...this.ruleListeners]) listener(rule);
  }

  private enqueue(
    request: PendingRequest,
    signal: AbortSignal | undefined,
    reject: (reason: unknown) => void,
  ): void {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    signal?.addEventListener(
      'abort',
      () => {
        if (this.remove(request)) reject(signal.reason);
      },
      { once: true },
    );
    this.queue.push(request);
    this.changed();
  }

  private remove(request: PendingRequest): boolean {
    const index = this.queue.indexOf(request);
    if (index < 0) return false;
    this.queue.splice(index, 1);
    this.changed();
    return true;
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** The rule "yes, always" adds: this tool, and for a shell command this exact command line. */
export function ruleFor(tool: string, args: unknown): PermissionRule {
  const command = (args as Record<string, unknown> | undefined)?.[SHELL_COMMAND_ARGUMENT];
  if (tool === SHELL_TOOL && typeof command === 'string') {
    return {
      tool,
      action: 'allow',
      match: { [SHELL_COMMAND_ARGUMENT]: normaliseWhitespace(command) },
    };
  }
  return { tool, action: 'allow' };
}

/** What a session rule allows, in words: `bash \`ls -la\`` or `every write_file call`. */
export function describeRule(rule: PermissionRule): string {
  const command = rule.match?.[SHELL_COMMAND_ARGUMENT];
  return command === undefined ? `every ${rule.tool} call` : `${rule.tool} \`${command}\``;
}
