/**
 * Estimates, at about four characters a token, what a request or a message adds to a context
 * window. Only for what a provider has not counted yet: the size of a request is the previous
 * request's reported prompt tokens plus an estimate of the difference, never an estimate of the
 * whole once a report exists. Pure; a message's estimate is kept per message object.
 */
import { imageTokens, type ModelMessage, type ModelToolSpec } from '../llm/contract.js';

const CHARACTERS_PER_TOKEN = 4;
const messageCharacters = new WeakMap<ModelMessage, number>();
/** A tool list's JSON length, per list and per spec: agents of one run share their specs. */
const toolListCharacters = new WeakMap<readonly ModelToolSpec[], number>();
const toolCharacters = new WeakMap<ModelToolSpec, number>();

export const tokensOfCharacters = (characters: number): number =>
  Math.ceil(characters / CHARACTERS_PER_TOKEN);

export function charactersOfMessage(message: ModelMessage): number {
  const known = messageCharacters.get(message);
  if (known !== undefined) return known;
  let characters: number;
  if (message.role === 'assistant') {
    characters = message.text.length + (message.reasoning?.length ?? 0);
    for (const call of message.toolCalls) {
      characters += call.name.length + (JSON.stringify(call.arguments) ?? '').length;
    }
  } else {
    characters = message.content.length;
    // An image counts at its fixed estimate (see `imageTokens`), as characters.
    for (const image of message.images ?? [])
      characters += imageTokens(image) * CHARACTERS_PER_TOKEN;
  }
  messageCharacters.set(message, characters);
  return characters;
}

/** The characters of a whole request: system prompt, tool schemas and messages. */
export function charactersOfRequest(
  system: string,
  tools: readonly ModelToolSpec[],
  messages: readonly ModelMessage[],
): number {
  let characters = system.length + charactersOfTools(tools);
  for (const message of messages) characters += charactersOfMessage(message);
  return characters;
}

/** `JSON.stringify(tools).length` (0 for none), each spec serialized once. */
function charactersOfTools(tools: readonly ModelToolSpec[]): number {
  if (tools.length === 0) return 0;
  const known = toolListCharacters.get(tools);
  if (known !== undefined) return known;
  // The brackets and the commas between specs, then each spec.
  let characters = 2 + tools.length - 1;
  for (const tool of tools) {
    let length = toolCharacters.get(tool);
    if (length === undefined) {
      length = JSON.stringify(tool).length;
      toolCharacters.set(tool, length);
    }
    characters += length;
  }
  toolListCharacters.set(tools, characters);
  return characters;
}
