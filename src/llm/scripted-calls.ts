/**
 * What a scripted model was asked and which rule answered: the `calls` record and the report of
 * rules and steps that never answered, so a test can assert its script ran as intended. Entries
 * are copies taken when the request is sent; later changes to the caller's request never show.
 */
import type { ModelMessage, ModelRequest, ModelToolSpec, ReasoningEffort } from './contract.js';
import type { ValidScriptedModel } from './scripted-rules.js';

/** Which part of the file answered a request. */
export type ScriptedAnswerer =
  | { kind: 'rule'; index: number; when: string }
  | { kind: 'default' }
  /** No rule matched and there is no default: the request failed naming its prompt. */
  | { kind: 'unmatched' }
  /** The request was larger than the file's `context` window: it failed before any rule. */
  | { kind: 'overflow' };

export interface ScriptedCall {
  rule: ScriptedAnswerer;
  /** Index in the answer's `steps` of the step that answered; 0 for an answer without steps. */
  step: number;
  /** The latest user message: what each `when` was tested against. */
  prompt: string;
  system: string;
  messages: ModelMessage[];
  /** The tools the request offered. */
  tools: ModelToolSpec[];
  /** The effort the request asked for; absent when it asked none. */
  effort?: ReasoningEffort;
}

/** A rule that never answered (no `step`), or one step of a used rule that never answered. */
export interface UnusedScriptedRule {
  index: number;
  when: string;
  step?: number;
}

/** Records calls and remembers which steps of which rules answered. */
export class CallRecord {
  readonly calls: ScriptedCall[] = [];
  /** Per rule index: the step indexes that answered. */
  private readonly usedSteps = new Map<number, Set<number>>();

  constructor(
    private readonly file: ValidScriptedModel,
    private readonly keepRequests: boolean,
  ) {}

  add(request: ModelRequest, prompt: string, rule: ScriptedAnswerer, step: number): void {
    if (this.keepRequests)
      this.calls.push({
        rule,
        step,
        prompt,
        system: request.system,
        messages: structuredClone(request.messages),
        tools: structuredClone(request.tools),
        ...(request.effort !== undefined ? { effort: request.effort } : {}),
      });
    if (rule.kind !== 'rule') return;
    let steps = this.usedSteps.get(rule.index);
    if (!steps) {
      steps = new Set();
      this.usedSteps.set(rule.index, steps);
    }
    steps.add(step);
  }

  /** Rules in file order; `default` is a fallback and never reported. */
  unusedRules(): UnusedScriptedRule[] {
    return this.file.rules.flatMap((rule, index): UnusedScriptedRule[] => {
      const used = this.usedSteps.get(index);
      if (!used) return [{ index, when: rule.when }];
      if (!('steps' in rule)) return [];
      return rule.steps.flatMap((_step, step) =>
        used.has(step) ? [] : [{ index, when: rule.when, step }],
      );
    });
  }
}
