/**
 * Builds the runtime a command works in from config, flags and environment: the model resolver,
 * the built-in tools, permission rules, and the capability layers (subagents, workflows, jobs,
 * goals, context management). The one place the CLI wires layers together; each layer still installs itself.
 */
import { resolve } from 'node:path';
import { UserError } from '../base/errors.js';
import { installCheckpoints } from '../checkpoint/install.js';
import type { CodeModeSettings, ToolPresentation } from '../code-mode/contract.js';
import { type CodeModeLayer, installCodeMode } from '../code-mode/install.js';
import { loadConfig } from '../config/load-config.js';
import { checkPermissionRules } from '../config/permission-check.js';
import {
  compileRules,
  firstMatchingAction,
  installPermissionRules,
} from '../config/permissions.js';
import type { LoomConfig } from '../config/schema.js';
import { contextSettings } from '../context/context-settings.js';
import { type ContextSettings, modelCatalogKey } from '../context/contract.js';
import { installContext } from '../context/install.js';
import { createModelCatalog, type ModelCatalogWithClients } from '../context/model-catalog.js';
import { modelRoutes } from '../context/model-routes.js';
import { didYouMean } from '../core/closest-name.js';
import { Context } from '../core/context.js';
import { credentialVariablesKey } from '../core/credential-variables.js';
import { modelImagesKey } from '../core/image-view.js';
import { AgentRuntime, agentRuntimeKey } from '../core/runtime.js';
import type { CatalogEntry } from '../core/tool-catalog.js';
import type { ToolLoadingSettings } from '../core/tool-loading.js';
import { type GoalLayer, installGoals } from '../goal/install.js';
import { installQuestionTool } from '../interaction/ask-user-question.js';
import { installSchedules } from '../interaction/schedule-install.js';
import {
  noUser,
  rootOnlyQuestions,
  type UserAnswerer,
  userQuestionsKey,
} from '../interaction/user-questions.js';
import { installWorkspaces } from '../interaction/workspace-install.js';
import { installJobs, type JobsLayer } from '../jobs/install.js';
import type { ModelClient } from '../llm/contract.js';
import type { PriceSource } from '../llm/prices.js';
import { createModelClient } from '../llm/providers.js';
import { installMcp, type McpLayer } from '../mcp/install.js';
import { clientSettings, declaredServers } from '../mcp/server-list.js';
import { storedSecretValues } from '../mcp/token-store.js';
import { installPlanMode, type PlanLayer } from '../plan/install.js';
import { installAgentTypes } from '../project/agent-types-install.js';
import { installHooks } from '../project/hook-install.js';
import { installInstructions } from '../project/instructions-install.js';
import { installSkillsAndCommands } from '../project/skills-and-commands.js';
import { installSandbox, sandboxDescription, sandboxSettings } from '../sandbox/install.js';
import { installSubagents, type SubagentLayer } from '../subagent/install.js';
import { installTodos } from '../todo/install.js';
import { builtinTools } from '../tools/index.js';
import { installProcessGroupLog } from '../tools/process-group-log.js';
import { webSettings, webTools } from '../web/web-tools.js';
import { installWorkflows, type WorkflowLayer } from '../workflow/install.js';
import { blameModelSource, chooseModel, requireModelKey } from './choose-model.js';
import { configCredentials } from './config-credentials.js';
import { redactOutputWith } from './output-redaction.js';

export interface RuntimeFlags {
  cwd: string;
  home: string;
  /** `--model`; without it `chooseModel` picks from `$LOOM_MODEL`, config and the DeepSeek key. */
  model?: string;
  maxSteps?: number;
  /** Who answers the root agents' questions (a terminal, an answers file, an ACP client); default nobody. */
  answerer?: UserAnswerer;
  /** `--tools-mode`: every agent's tool presentation, over config's `tools.presentation`. */
  toolsMode?: ToolPresentation;
  /** The merged config, when the caller has read it already; else it is read here. */
  config?: LoomConfig;
  /**
   * Refuse to build (a UserError, `MISSING_CREDENTIAL`) when the chosen model's key variable is
   * not set, before anything runs; default false (the first request then fails naming it).
   */
  requireModelKey?: boolean;
}

export interface LoomSetup {
  runtime: AgentRuntime;
  subagents: SubagentLayer;
  /** Layer 2: the workflow service on the root scope and the `workflow` tool on every agent. */
  workflow: WorkflowLayer;
  /** Layer 3: the job service (the background runner) and the job tools on every agent. */
  jobs: JobsLayer;
  /** Layer 4: a goal service, round driver and the goal tools on every root agent. */
  goals: GoalLayer;
  /** Layer 5: plan mode (`exit_plan_mode`, its prompt section and guard). */
  plan: PlanLayer;
  /**
   * MCP servers of config and `.mcp.json`: a command awaits `mcp.ready(handle)` as its session
   * starts (the servers start then), so their tools are there from the first turn.
   */
  mcp: McpLayer;
  /** Code Mode: `run_code` and the tool SDK for agents whose presentation is `code` or `both`. */
  codeMode: CodeModeLayer;
  config: LoomConfig;
  /** The default model's spec, as `chooseModel` chose it. */
  modelSpec: string;
  /** The client of a model spec (made once per spec); no spec: the default model. Throws a bad spec. */
  resolveModel(spec?: string): ModelClient;
  /** What Loom knows of each model (also the root's `context/catalog` service); its data loads at the first lookup. */
  catalog: ModelCatalogWithClients;
  /** Prices by model spec: config's, else the catalog's, looked up when a cost is asked. */
  prices: PriceSource;
  /** Config `context:` with its defaults. */
  context: ContextSettings;
}

export function buildRuntime(flags: RuntimeFlags): LoomSetup {
  const config = flags.config ?? loadConfig(flags.home, flags.cwd);
  const choice = chooseModel({
    ...(flags.model !== undefined ? { flag: flags.model } : {}),
    env: process.env,
    ...(config.model !== undefined ? { configModel: config.model } : {}),
  });
  const modelSpec = choice.spec;
  const routes = modelRoutes(config.models);
  const catalog = createModelCatalog({
    ...(config.models ? { models: config.models } : {}),
    ...(config.prices ? { prices: config.prices } : {}),
  });
  const prices: PriceSource = (model) => catalog.lookup(model).prices;
  const clients = new Map<string, ModelClient>();
  const resolveModel = (spec = modelSpec) => {
    let client = clients.get(spec);
    if (!client) {
      client = createModelClient(spec, {
        env: process.env,
        routes,
        ...(config.retry ? { retry: config.retry } : {}),
      });
      clients.set(spec, client);
    }
    return client;
  };
  try {
    resolveModel();
  } catch (error) {
    throw blameModelSource(choice, error);
  }
  if (flags.requireModelKey) {
    requireModelKey(choice, { env: process.env, routes });
  }
  const maxSteps = flags.maxSteps ?? config.agent?.maxSteps;
  const root = new Context();
  const runtime = new AgentRuntime({
    root,
    home: flags.home,
    cwd: flags.cwd,
    resolveModel,
    ...(maxSteps ? { limits: { maxSteps } } : {}),
    toolLoading: toolLoadingSettings(config),
  });
  root.provide(agentRuntimeKey, runtime);
  root.provide(modelCatalogKey, catalog);
  // Whether a model takes images (for one whose client declares nothing): catalog and config.
  root.provide(modelImagesKey, (spec) => catalog.lookup(spec).images);
  root.provide(
    userQuestionsKey,
    rootOnlyQuestions((sessionId) => runtime.find(sessionId)?.log.header, flags.answerer ?? noUser),
  );
  installQuestionTool(runtime);
  const extraRoots = (config.tools?.extraRoots ?? []).map((root) => resolve(flags.cwd, root));
  const jobs = installJobs(runtime, {
    ...(config.jobs?.maxPerOwner !== undefined ? { maxPerOwner: config.jobs.maxPerOwner } : {}),
    ...(config.jobs?.outputLimitBytes !== undefined
      ? { outputLimitBytes: config.jobs.outputLimitBytes }
      : {}),
  });
  const mcpServers = declaredServers(config, flags.cwd);
  const credentials = configCredentials(config, mcpServers);
  credentials.addValues(storedSecretValues);
  root.provide(credentialVariablesKey, credentials);
  redactOutputWith(credentials);
  installProcessGroupLog(runtime);
  const passthrough = config.tools?.bash?.env?.passthrough;
  const bashSandboxDescription = sandboxDescription(sandboxSettings(config.sandbox));
  const tools = builtinTools({
    ...(bashSandboxDescription ? { bashSandboxDescription } : {}),
    workspace: { root: flags.cwd, extraRoots },
    ...(passthrough ? { bashPassthroughVariables: passthrough } : {}),
    ...(config.tools?.bashTimeoutMs ? { bashTimeoutMs: config.tools.bashTimeoutMs } : {}),
    background: true,
    ...(config.jobs?.outputLimitBytes !== undefined
      ? { backgroundOutputLimit: config.jobs.outputLimitBytes }
      : {}),
  });
  runtime.offerTools(tools);
  // web_fetch follows a redirect to another host only where the rules would let it fetch there.
  const rulesCompiled = compileRules(config.permissions ?? []);
  runtime.offerTools(
    webTools({
      settings: webSettings(config.web),
      resolveModel,
      redirectVerdict: (url) => firstMatchingAction(rulesCompiled, 'web_fetch', { url: url.href }),
    }),
  );
  // First of the `tools/pre-execute` listeners: the sandbox's gate sees what hooks and rules decide.
  const sandbox = installSandbox(runtime, {
    config: config.sandbox,
    permissions: config.permissions ?? [],
  });
  // Hooks before permission rules: a PreToolUse hook sees every call, even one a rule allows.
  installHooks(runtime, { config: config.hooks, workspace: flags.cwd });
  if (config.permissions) installPermissionRules(root, config.permissions);
  // Before the subagents: the subagent tool lists the agent types as it is made.
  installAgentTypes(runtime);
  const subagents = installSubagents(runtime, {
    ...(config.subagents?.maxDepth !== undefined ? { maxDepth: config.subagents.maxDepth } : {}),
    ...(config.subagents?.provider ? { defaultProvider: config.subagents.provider } : {}),
    ...(config.subagents?.providers ? { providers: config.subagents.providers } : {}),
    defaultModel: modelSpec,
  });
  const { offerTool, provider: workflowProvider, engine, ...limits } = config.workflow ?? {};
  const workflow = installWorkflows(runtime, subagents.services, {
    ...(Object.keys(limits).length > 0 ? { limits } : {}),
    ...(offerTool ? { offerTool } : {}),
    ...(workflowProvider ? { provider: workflowProvider } : {}),
    ...(engine ? { engine } : {}),
    home: flags.home,
    cwd: flags.cwd,
    prices,
    modelRoutes: Object.keys(routes),
    defaultModel: modelSpec,
  });
  // What each layer restates after a compaction (`agent/standing-state`) comes in the order the
  // layers install here: jobs (early, as the background runner subagents need), goal, todos,
  // plan, schedules. test/cli/standing-state.test.ts pins it.
  const goals = installGoals(runtime, config.goal ?? {});
  const todos = installTodos(runtime, config.todo ?? {});
  // Snapshots of the workspace before each step of a root agent that can change files.
  installCheckpoints(runtime, config.checkpoints ?? {});
  // Context accounting, pruning and `recall` on every agent, with config's `context:` settings.
  const contextSettingsChosen = contextSettings(config.context);
  const context = installContext(runtime, contextSettingsChosen);
  const stopRecordingWorkspaces = installWorkspaces(runtime);
  const plan = installPlanMode(runtime, { ...config.plan, permissions: config.permissions ?? [] });
  // Layer 6: reminders root agents set themselves; unref'd timers, so they never hold a process.
  const schedules = installSchedules(runtime);
  const codeMode = installCodeMode(runtime, codeModeSettings(config, flags.toolsMode));
  installInstructions(runtime, config.instructions);
  const mcp = installMcp(runtime, {
    servers: mcpServers,
    settings: clientSettings(config, flags.cwd),
    sandboxLauncher: (cwd, env) => sandbox.sandbox.launch(cwd, env),
    ...(config.mcp?.outputLimit !== undefined ? { outputLimit: config.mcp.outputLimit } : {}),
  });
  installSkillsAndCommands(runtime);
  const alwaysLoad = config.tools?.alwaysLoad ?? [];
  if (config.permissions || alwaysLoad.length > 0) {
    try {
      checkAlwaysLoad(alwaysLoad, runtime.toolCatalog.entries());
      if (config.permissions)
        checkPermissionRules(config.permissions, runtime.toolCatalog.entries());
    } catch (error) {
      void codeMode.dispose();
      todos.dispose();
      context.dispose();
      stopRecordingWorkspaces();
      plan.dispose();
      schedules.dispose();
      goals.dispose();
      workflow.dispose();
      subagents.dispose();
      jobs.dispose();
      throw error;
    }
  }
  return {
    runtime,
    subagents,
    workflow,
    jobs,
    goals,
    plan,
    mcp,
    codeMode,
    config,
    modelSpec,
    resolveModel,
    catalog,
    prices,
    context: contextSettingsChosen,
  };
}

/** Config's `tools.deferred`, `tools.alwaysLoad` and `tools.eagerMcpTools`. */
function toolLoadingSettings(config: LoomConfig): ToolLoadingSettings {
  const tools = config.tools;
  return {
    ...(tools?.deferred !== undefined ? { deferred: tools.deferred } : {}),
    ...(tools?.alwaysLoad ? { alwaysLoad: tools.alwaysLoad } : {}),
    ...(tools?.eagerMcpTools !== undefined ? { numerousInFull: tools.eagerMcpTools } : {}),
  };
}

/** Each `tools.alwaysLoad` name is a declared tool, or an MCP one (its server connects later). */
function checkAlwaysLoad(names: readonly string[], known: readonly CatalogEntry[]): void {
  const knownNames = known.map((entry) => entry.name);
  for (const name of names) {
    if (knownNames.includes(name) || name.startsWith('mcp__')) continue;
    throw new UserError(
      'INVALID_CONFIG',
      `tools.alwaysLoad names ${name}, which is no tool${didYouMean(name, knownNames)}; give tool names such as ${knownNames.slice(0, 3).join(', ')}, or mcp__SERVER__TOOL`,
    );
  }
}

/** `--tools-mode` wins over `tools.presentation` for every agent; `subagents.presentation` over both for children. */
function codeModeSettings(
  config: LoomConfig,
  toolsMode: ToolPresentation | undefined,
): CodeModeSettings {
  const presentation = toolsMode ?? config.tools?.presentation;
  const subagentPresentation = config.subagents?.presentation ?? toolsMode;
  return {
    ...(presentation ? { presentation } : {}),
    ...(subagentPresentation ? { subagentPresentation } : {}),
    ...(config.tools?.codeMode ? { limits: config.tools.codeMode } : {}),
  };
}
