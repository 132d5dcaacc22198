/**
 * Claude Code's effort levels (`low`, `medium`, `high`, `max`) on each route's own reasoning
 * control: OpenAI's reasoning effort, Anthropic's thinking budget, DeepSeek's thinking mode (its
 * reasoner) and, on DeepSeek V4 models, its reasoning effort. A route or model without such a
 * control has none here, and its requests run without one. Pure; it never reads a credential.
 */
import type { SharedV3ProviderOptions } from '@ai-sdk/provider';
import type { ModelRequest, ReasoningEffort } from './contract.js';
import type { ApiProvider } from './model-spec.js';

export interface ReasoningControl {
  /** What a request at `effort` is sent with, in words a run's events show. */
  describe(effort: ReasoningEffort): string;
  /** The provider options of `request` at `effort`; undefined: nothing to send for it. */
  providerOptions(
    effort: ReasoningEffort,
    request: ModelRequest,
  ): SharedV3ProviderOptions | undefined;
}

/** OpenAI has no level above `high` for every reasoning model: `max` is sent as `high`. */
const openAiEfforts: Record<ReasoningEffort, 'low' | 'medium' | 'high'> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  max: 'high',
};

/** Thinking tokens per level: Anthropic's minimum (1024) is below `low`; `max` stays under 32k. */
export const anthropicThinkingBudgets: Readonly<Record<ReasoningEffort, number>> = {
  low: 2048,
  medium: 8192,
  high: 16384,
  max: 32000,
};

/** DeepSeek V4's levels are `low`, `high` and `max`: `medium` is sent as `high`. */
const deepSeekEfforts: Record<ReasoningEffort, 'low' | 'high' | 'max'> = {
  low: 'low',
  medium: 'high',
  high: 'high',
  max: 'max',
};

/** The control of `model` on `provider`, or undefined when it has none. */
export function reasoningControlFor(
  provider: ApiProvider,
  model: string,
): ReasoningControl | undefined {
  switch (provider) {
    case 'openai':
      return isOpenAiReasoningModel(model) ? openAiControl : undefined;
    case 'anthropic':
      return anthropicThinks(model) ? anthropicControl : undefined;
    case 'deepseek':
      return isDeepSeekV4(model) ? deepSeekV4Control : deepSeekThinkingControl;
    case 'openai-compatible':
      return undefined;
    default:
      return undefined;
  }
}

/** o-series models and GPT-5 or later, but not their `-chat` variants (which do not reason). */
export function isOpenAiReasoningModel(model: string): boolean {
  if (/^o\d+(?:-|$)/.test(model)) return true;
  const gpt = /^gpt-(\d+)(?:\.\d+)?(?:-(.*))?$/.exec(model);
  if (!gpt) return false;
  return Number(gpt[1]) >= 5 && !(gpt[2] ?? '').startsWith('chat');
}

/** Claude 3.7 and every Claude from 4 on think; the Claude 3 and 3.5 models do not. */
function anthropicThinks(model: string): boolean {
  return !/^claude-3-(?!7)/.test(model);
}

function isDeepSeekV4(model: string): boolean {
  return model.includes('deepseek-v4');
}

const openAiControl: ReasoningControl = {
  describe: (effort) => `OpenAI reasoningEffort ${openAiEfforts[effort]}`,
  providerOptions: (effort) => ({ openai: { reasoningEffort: openAiEfforts[effort] } }),
};

const anthropicControl: ReasoningControl = {
  describe: (effort) =>
    `Anthropic thinking with a budget of ${anthropicThinkingBudgets[effort]} tokens`,
  // Anthropic refuses thinking on a request that forces a tool: that request goes without it.
  providerOptions: (effort, request) =>
    forcesTool(request)
      ? undefined
      : {
          anthropic: {
            thinking: { type: 'enabled', budgetTokens: anthropicThinkingBudgets[effort] },
          },
        },
};

const deepSeekThinkingControl: ReasoningControl = {
  describe: () => 'DeepSeek thinking mode (the reasoner; this model has no finer level)',
  providerOptions: () => ({ deepseek: { thinking: { type: 'enabled' } } }),
};

const deepSeekV4Control: ReasoningControl = {
  describe: (effort) => `DeepSeek thinking mode with reasoningEffort ${deepSeekEfforts[effort]}`,
  providerOptions: (effort) => ({
    deepseek: { thinking: { type: 'enabled' }, reasoningEffort: deepSeekEfforts[effort] },
  }),
};

function forcesTool(request: ModelRequest): boolean {
  const choice = request.toolChoice;
  return choice === 'required' || (typeof choice === 'object' && choice !== null);
}
