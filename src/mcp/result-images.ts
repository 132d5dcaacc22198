/**
 * Keeps the image blocks of an MCP tool result in the blob store, so they reach a model that takes
 * images as images (and any other model described), then renders the result (result-text.ts). An
 * image block whose bytes are no PNG, JPEG, GIF or WebP (an SVG, damaged base64) stays described in
 * the text. Never throws on what a server sends.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { blobStoreKey } from '../core/blob-store.js';
import { imageFacts } from '../core/image-bytes.js';
import { keepImage } from '../core/image-intake.js';
import type { ToolExecution, ToolOutput } from '../core/tool-contract.js';
import type { ImageReference } from '../llm/contract.js';
import { resultText } from './result-text.js';

export async function resultWithImages(
  result: CallToolResult,
  outputLimit: number,
  execution: Pick<ToolExecution, 'context' | 'name'>,
): Promise<ToolOutput> {
  const store = execution.context.find(blobStoreKey);
  const blocks = Array.isArray(result.content) ? result.content : [];
  const kept = new Map<number, ImageReference>();
  if (store) {
    for (const [index, block] of blocks.entries()) {
      if (block.type !== 'image' || typeof block.data !== 'string') continue;
      const bytes = Buffer.from(block.data, 'base64');
      if (!imageFacts(bytes)) continue;
      try {
        kept.set(index, await keepImage(store, bytes, `the image of ${execution.name}'s result`));
      } catch {
        // One that cannot be kept (too large to scale) stays described in the text.
      }
    }
  }
  return resultText(result, outputLimit, kept);
}
