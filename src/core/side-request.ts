/**
 * A model request made for an agent beside its own turn (an MCP server's sampling, a web page
 * condensed for `web_fetch`'s prompt): it streams the request, gathers the text, and logs its
 * tokens in the agent's session as a `model/side-request` with a purpose and the turn, so they
 * count in the agent's usage, its turn's and any workflow budget. Never throws: a model failure
 * comes back as `failure`; the caller decides what to tell.
 */
import type { FinishReason, ModelClient, ModelRequest, Usage } from '../llm/contract.js';
import type { SessionLog } from './session-log.js';

export interface SideRequestOptions {
  model: ModelClient;
  request: ModelRequest;
  /** The session the tokens are logged in; a closed log is left alone. */
  log: SessionLog;
  /** Why the request was made, logged as `purpose` (`mcp-sampling`, `web-fetch`). */
  purpose: string;
  turnId?: string;
}

export interface SideRequestOutcome {
  text: string;
  /** Absent when the model ended without reporting any. */
  usage?: Usage;
  /** Set when the model failed, or ended without finishing. */
  failure?: string;
  finishReason?: FinishReason;
}

export async function sideRequest(options: SideRequestOptions): Promise<SideRequestOutcome> {
  const { model, log } = options;
  let text = '';
  let usage: Usage | undefined;
  let failure: string | undefined;
  let finishReason: FinishReason | undefined;
  try {
    for await (const part of model.stream(options.request)) {
      if (part.type === 'text') text += part.text;
      else if (part.type === 'finish') {
        usage = part.usage;
        finishReason = part.reason;
      } else if (part.type === 'error') {
        usage = part.usage;
        failure = part.error.message;
      }
    }
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  if (usage && !log.closed) {
    log.append('model/side-request', {
      purpose: options.purpose,
      model: model.id,
      usage,
      ...(options.turnId !== undefined ? { turnId: options.turnId } : {}),
    });
  }
  if (failure === undefined && finishReason === undefined) failure = 'it ended without finishing';
  return {
    text,
    ...(usage ? { usage } : {}),
    ...(failure !== undefined ? { failure } : {}),
    ...(finishReason !== undefined ? { finishReason } : {}),
  };
}
