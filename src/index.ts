/**
 * The `loom` package: the agent core (layer 0) and the model seam, for programs that embed Loom.
 * Each export is a contract or a ready part; capability layers add their own entry points.
 */

export {
  assertNever,
  errorMessage,
  LoomError,
  type LoomErrorCode,
  type LoomErrorCodeMap,
  UserError,
} from './base/errors.js';
export { Agent, type AgentOptions, DEFAULT_MAX_STEPS } from './core/agent.js';
export {
  type AgentStatus,
  agentStatus,
  agentTurnEnd,
  agentTurnStopping,
  type TurnEnding,
  type TurnOutcome,
} from './core/agent-hooks.js';
export {
  type BackgroundRunner,
  type BackgroundWork,
  backgroundRunnerKey,
} from './core/background.js';
export {
  Context,
  type Disposer,
  defineEmit,
  defineSerial,
  defineWaterfall,
  type EmitHook,
  type SerialHook,
  type ServiceKey,
  serviceKey,
  type WaterfallHook,
} from './core/context.js';
export { type AgentHandle, type CreateAgentOptions, createAgent } from './core/create-agent.js';
export {
  CredentialVariables,
  credentialVariablesKey,
  looksLikeCredential,
} from './core/credential-variables.js';
export { defineTool } from './core/define-tool.js';
export { loomHome } from './core/home.js';
export { deriveMessages, MessageProjection } from './core/messages.js';
export {
  AgentRuntime,
  agentRuntimeKey,
  type RuntimeOptions,
  type StartAgentOptions,
} from './core/runtime.js';
export type * from './core/session-events.js';
export { loadSessionFile, repairEvents } from './core/session-load.js';
export { newSessionId, SessionLog } from './core/session-log.js';
export { SessionStore, type SessionSummary } from './core/session-store.js';
export { promptAssemble, SystemPrompt, systemPromptKey } from './core/system-prompt.js';
export type {
  ToolDefinition,
  ToolExecution,
  ToolOutput,
  ToolResult,
} from './core/tool-contract.js';
export {
  permissionAskerKey,
  ToolPipeline,
  toolExecute,
  toolPipelineKey,
  toolPostExecute,
  toolPreExecute,
  toolResultObserved,
} from './core/tool-pipeline.js';
export type * from './interaction/user-questions.js';
export {
  noUser,
  rootOnlyQuestions,
  UserQuestionError,
  userQuestionsKey,
} from './interaction/user-questions.js';
export type * from './jobs/contract.js';
export { JobError, jobServiceKey, jobSettled, jobStarted } from './jobs/contract.js';
export { installJobs, type JobsLayer, type JobsLayerOptions } from './jobs/install.js';
export type * from './llm/contract.js';
export { createModelClient, defaultModelSpec } from './llm/providers.js';
export { withRetry } from './llm/retry.js';
export type * from './subagent/contract.js';
export { SubagentError, subagentEnd, subagentStart } from './subagent/contract.js';
export {
  installSubagents,
  type SubagentLayer,
  type SubagentLayerOptions,
} from './subagent/install.js';
export { builtinTools } from './tools/index.js';
export type * from './workflow/contract.js';
export {
  WorkflowError,
  workflowAgentEnd,
  workflowAgentStart,
  workflowEnd,
  workflowLog,
  workflowPhase,
  workflowServiceKey,
  workflowStart,
} from './workflow/contract.js';
export {
  installWorkflows,
  type WorkflowLayer,
  type WorkflowLayerOptions,
} from './workflow/install.js';
