/**
 * Turns an MCP tool result into the text the model reads: text as it is; images, audio and
 * binary resources described by their MIME type and size (their bytes never reach the model as
 * text; images kept in the blob store are the output's images as well);
 * embedded text resources with their address and text; resource links as links (address,
 * name, MIME type); structured content as JSON beside the text (unless the text already says
 * it: a text block that is its JSON, or its one string field). The whole is capped like bash output (head and tail kept). The
 * blocks' annotations (audience, priority) go to the log's `tool/result` details, not to the
 * model. Pure; never throws on any shape a server sends.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutput } from '../core/tool-contract.js';
import type { ImageReference } from '../llm/contract.js';
import { BoundedOutput } from '../tools/bounded-output.js';

type ContentBlock = CallToolResult['content'][number];

/** Bytes a base64 text decodes to. */
export function base64Size(data: string): number {
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

function bytes(count: number): string {
  return `${count} byte${count === 1 ? '' : 's'}`;
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${bytes(base64Size(block.data))}]`;
    case 'resource': {
      const resource = block.resource;
      const type = resource.mimeType ?? 'unknown type';
      if ('text' in resource && typeof resource.text === 'string') {
        const size = Buffer.byteLength(resource.text, 'utf8');
        return `[resource ${resource.uri}: ${type}, ${bytes(size)}]\n${resource.text}`;
      }
      const data = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return `[resource ${resource.uri}: ${type}, ${bytes(base64Size(data))}]`;
    }
    case 'resource_link': {
      const parts = [block.mimeType ?? 'unknown type'];
      if (typeof block.size === 'number') parts.push(bytes(block.size));
      const title =
        block.title !== undefined && block.title !== block.name ? `, titled ${block.title}` : '';
      const description = block.description?.trim() ? `: ${block.description.trim()}` : '';
      return `[resource link ${block.uri} (${block.name}${title}): ${parts.join(', ')}]${description}`;
    }
    default: {
      const unknown = block as { type?: unknown };
      return `[content of type ${String(unknown.type)}]`;
    }
  }
}

/**
 * Whether the text already says what `structured` holds (servers often send both): a text block
 * is its JSON, or it is one field whose string is a text block (the filesystem server's
 * `{content: TEXT}`).
 */
function textHolds(blocks: readonly ContentBlock[], structured: unknown): boolean {
  const wanted = JSON.stringify(structured);
  const values =
    typeof structured === 'object' && structured !== null ? Object.values(structured) : [];
  const only = values.length === 1 && typeof values[0] === 'string' ? values[0] : undefined;
  return blocks.some((block) => {
    if (block.type !== 'text') return false;
    if (only !== undefined && block.text === only) return true;
    try {
      return JSON.stringify(JSON.parse(block.text)) === wanted;
    } catch {
      return false;
    }
  });
}

/** The annotations of each block that has them, by its place in the result. */
function annotationsOf(blocks: readonly ContentBlock[]): Array<Record<string, unknown>> {
  return blocks.flatMap((block, index) => {
    const annotations = (block as { annotations?: unknown }).annotations;
    return typeof annotations === 'object' && annotations !== null
      ? [{ block: index, type: String(block.type), annotations }]
      : [];
  });
}

/**
 * `kept`: the image blocks (by their place in `result.content`) already in the blob store
 * (result-images.ts); they go to the output's `images` as well as being named in the text.
 */
export function resultText(
  result: CallToolResult,
  outputLimit: number,
  kept: ReadonlyMap<number, ImageReference> = new Map(),
): ToolOutput {
  const blocks = Array.isArray(result.content) ? result.content : [];
  // A kept image keeps its line too: the text says where it came, the image follows the text.
  const parts = blocks.map(describeBlock);
  const images = [...kept.entries()].sort(([a], [b]) => a - b).map(([, image]) => image);
  const structured = result.structuredContent;
  if (structured !== undefined && !textHolds(blocks, structured)) {
    const json = JSON.stringify(structured, null, 2);
    parts.push(parts.length === 0 ? json : `structured content:\n${json}`);
  }
  const output = new BoundedOutput(outputLimit);
  output.append(parts.join('\n'));
  const content = parts.length === 0 ? '(the tool sent no content)' : output.toString();
  const annotations = annotationsOf(blocks);
  const details = annotations.length > 0 ? { annotations } : undefined;
  if (result.isError !== true && details === undefined && images.length === 0) return content;
  return {
    content,
    ...(result.isError === true ? { isError: true } : {}),
    ...(details ? { details } : {}),
    ...(images.length > 0 ? { images } : {}),
  };
}
