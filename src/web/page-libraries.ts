/**
 * The libraries that turn a page into Markdown, in one module that html-markdown.ts imports at
 * the first page: linkedom (a DOM), Mozilla's Readability, turndown. The command line's build
 * bundles them apart as `web-pages.cjs` and loads that file here at that moment (see
 * scripts/bundle.mjs), so no start reads them. Re-exports only.
 */
export { Readability } from '@mozilla/readability';
export { parseHTML } from 'linkedom';
export { default as TurndownService } from 'turndown';
