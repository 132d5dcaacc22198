/**
 * Installs Code Mode into a runtime: each agent whose presentation is `code` or `both` gets
 * `run_code`, a `tools/present` listener that shows the model `run_code` alone (`code`) or every
 * tool (`both`), and the protected `tools:sdk` section describing, for each request, the tools
 * left after every filter (visibility, `tools/available`). `native` agents get nothing. The
 * program engine starts with the first agent that may call `run_code`; `dispose` ends it.
 */
import { type Disposer, disposeAll } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { AgentRuntime } from '../core/runtime.js';
import { availableTools, toolsPresent } from '../core/tool-presentation.js';
import {
  type CodeModeLimits,
  type CodeModeSettings,
  DEFAULT_CODE_MODE_LIMITS,
  RUN_CODE_TOOL,
  SDK_SECTION,
  type ToolPresentation,
} from './contract.js';
import type { ProgramRunner } from './program-contract.js';
import { RUN_CODE_PARAMETERS, runCodeTool } from './run-code-tool.js';
import { toolSdk } from './tool-sdk.js';

/** After the capability sections (150-190), before the goal and environment (900). */
const SDK_SECTION_ORDER = 200;
const OWNER = 'code-mode';

export interface CodeModeLayer {
  /** The presentation an agent at `delegationDepth` gets. */
  presentationAt(delegationDepth: number): ToolPresentation;
  dispose(): Promise<void>;
}

export interface CodeModeOptions extends CodeModeSettings {
  /** Makes the program engine; default the QuickJS one (loaded at the first `run_code`). */
  makeRunner?: () => ProgramRunner;
}

export function installCodeMode(
  runtime: AgentRuntime,
  options: CodeModeOptions = {},
): CodeModeLayer {
  const limits: CodeModeLimits = { ...DEFAULT_CODE_MODE_LIMITS, ...options.limits };
  const rootPresentation = options.presentation ?? 'native';
  const childPresentation = options.subagentPresentation ?? rootPresentation;
  const presentationAt = (depth: number) => (depth > 0 ? childPresentation : rootPresentation);
  let runner: Promise<ProgramRunner> | undefined;
  const sharedRunner = (): Promise<ProgramRunner> => {
    runner ??= options.makeRunner
      ? Promise.resolve(options.makeRunner())
      : import('./program-runner.js').then((engine) => engine.createProgramRunner());
    return runner;
  };
  const declared = runtime.toolCatalog.declare(
    [{ name: RUN_CODE_TOOL, parameters: RUN_CODE_PARAMETERS }],
    childPresentation === 'native'
      ? {
          notForChildren:
            'children present their tools natively (subagents.presentation: code or both gives them run_code)',
        }
      : {},
  );
  const stopSetting = runtime.onAgent((handle) => {
    const presentation = presentationAt(handle.log.header.delegationDepth);
    if (presentation === 'native') return undefined;
    // The engine's first thread boots (100-350 ms) while the agent's first request is out.
    sharedRunner().catch(() => {});
    return setUpAgent(handle, presentation, limits, sharedRunner);
  });
  return {
    presentationAt,
    async dispose() {
      stopSetting();
      declared();
      await (await runner)?.close();
    },
  };
}

function setUpAgent(
  handle: AgentHandle,
  presentation: Exclude<ToolPresentation, 'native'>,
  limits: CodeModeLimits,
  runner: () => Promise<ProgramRunner>,
): Disposer {
  const described = { names: [] as readonly string[], text: '' };
  return disposeAll([
    handle.tools.register(runCodeTool({ handle, limits, runner, sdkNames: () => described.names })),
    handle.context.use(toolsPresent, async (input, next) => {
      const shown = await next(input);
      if (input.agentId !== handle.agent.id) return shown;
      const tools = await availableTools(
        handle.context,
        input.agentId,
        input.tools.filter((tool) => tool.name !== RUN_CODE_TOOL),
      );
      described.names = tools.map((tool) => tool.name);
      described.text = sdkSection(presentation, toolSdk(tools));
      return presentation === 'code' ? shown.filter((tool) => tool.name === RUN_CODE_TOOL) : shown;
    }),
    handle.prompt.section({
      id: SDK_SECTION,
      order: SDK_SECTION_ORDER,
      text: () => described.text,
    }),
    handle.prompt.protect({ section: SDK_SECTION, tool: RUN_CODE_TOOL, owner: OWNER }),
  ]);
}

function sdkSection(presentation: Exclude<ToolPresentation, 'native'>, sdk: string): string {
  const lead =
    presentation === 'code'
      ? `You call your tools by writing a JavaScript program and running it with ${RUN_CODE_TOOL}: it is the only tool you call directly. Inside the program every tool below is an async function of \`tools\`. Prefer one program that makes all the calls a step needs, loops and filters in code, and returns only what you need to see.`
      : `Besides calling tools directly, you can run a JavaScript program with ${RUN_CODE_TOOL}, in which every tool below is an async function of \`tools\`. Use it when a step needs many calls or their results need filtering: only what the program returns comes back.`;
  return `# Tools as code\n\n${lead}\n\n\`\`\`ts\n${sdk.trimEnd()}\n\`\`\``;
}
