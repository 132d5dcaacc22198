/**
 * Turns an MCP tool result into the text the model reads: text as it is; images, audio and
 * binary resources described by their MIME type and size (their bytes never reach the model);
 * text resources with their address and text; structured content as JSON when nothing else was
 * sent. The whole is capped like bash output (head and tail kept). Pure; never throws on any
 * shape a server sends.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutput } from '../core/tool-contract.js';
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
      const title = block.title ?? block.name;
      return `[resource link ${block.uri}${title ? ` (${title})` : ''}: ${parts.join(', ')}]`;
    }
    default: {
      const unknown = block as { type?: unknown };
      return `[content of type ${String(unknown.type)}]`;
    }
  }
}

export function resultText(result: CallToolResult, outputLimit: number): ToolOutput {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const parts = blocks.map(describeBlock);
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  const output = new BoundedOutput(outputLimit);
  output.append(parts.join('\n'));
  const content = parts.length === 0 ? '(the tool sent no content)' : output.toString();
  return result.isError === true ? { content, isError: true } : content;
}
