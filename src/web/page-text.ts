/**
 * A downloaded body as text the model reads, by its content type (sniffed when the server sent
 * none): HTML as Markdown (html-markdown.ts), other text (text/*, JSON, XML, JavaScript, YAML)
 * decoded in its charset, a PDF's text through unpdf (loaded at the first PDF), anything else a
 * one-line description. Never returns binary bytes; never throws on a body it cannot read (it
 * says so instead).
 */
import { errorMessage } from '../base/errors.js';
import { htmlToMarkdown } from './html-markdown.js';

export interface PageText {
  /** `markdown` (from HTML), `text`, `pdf` (its text), `binary` (a description only). */
  kind: 'markdown' | 'text' | 'pdf' | 'binary';
  text: string;
  title?: string;
}

interface MediaType {
  essence: string;
  charset?: string;
}

function mediaType(header: string): MediaType {
  const [essence = '', ...parameters] = header.split(';').map((part) => part.trim());
  const charset = parameters
    .map((parameter) => /^charset\s*=\s*"?([^";]+)"?$/i.exec(parameter)?.[1])
    .find((value) => value !== undefined);
  return { essence: essence.toLowerCase(), ...(charset ? { charset } : {}) };
}

const TEXT_APPLICATIONS = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-javascript',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-ndjson',
  'application/graphql',
  'application/sql',
]);

function isText(essence: string): boolean {
  return (
    essence.startsWith('text/') ||
    TEXT_APPLICATIONS.has(essence) ||
    essence.endsWith('+json') ||
    essence.endsWith('+xml')
  );
}

/** What the first bytes say, for a body sent without a content type. */
function sniffed(body: Buffer): string {
  const start = body.subarray(0, 512).toString('latin1').trimStart().toLowerCase();
  if (start.startsWith('%pdf-')) return 'application/pdf';
  if (start.startsWith('<!doctype html') || start.startsWith('<html')) return 'text/html';
  return body.subarray(0, 8000).includes(0) ? 'application/octet-stream' : 'text/plain';
}

function decodedText(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

async function pdfText(body: Buffer, truncated: boolean): Promise<PageText> {
  if (truncated) {
    return {
      kind: 'binary',
      text: `[a PDF of more than ${body.length} bytes: it was cut at web.maxBytes and a cut PDF cannot be read; raise web.maxBytes to read it]`,
    };
  }
  try {
    const { getDocumentProxy, extractText } = await import('unpdf');
    const document = await getDocumentProxy(new Uint8Array(body));
    const { totalPages, text } = await extractText(document, { mergePages: true });
    return {
      kind: 'pdf',
      text: `[PDF, ${totalPages} page${totalPages === 1 ? '' : 's'}]\n\n${text}`,
    };
  } catch (error) {
    return {
      kind: 'binary',
      text: `[a PDF of ${body.length} bytes whose text could not be read: ${errorMessage(error)}]`,
    };
  }
}

export async function pageText(
  body: Buffer,
  contentType: string,
  url: URL,
  truncated: boolean,
): Promise<PageText> {
  const declared = mediaType(contentType);
  const essence =
    declared.essence === '' || declared.essence === 'application/octet-stream'
      ? sniffed(body)
      : declared.essence;
  if (essence === 'text/html' || essence === 'application/xhtml+xml') {
    const page = await htmlToMarkdown(decodedText(body, declared.charset), url);
    return { kind: 'markdown', text: page.markdown, ...(page.title ? { title: page.title } : {}) };
  }
  if (essence === 'application/pdf') return pdfText(body, truncated);
  if (isText(essence)) return { kind: 'text', text: decodedText(body, declared.charset) };
  return {
    kind: 'binary',
    text: `[${essence}, ${body.length}${truncated ? '+' : ''} bytes of binary content: web_fetch reads only text, HTML and PDF]`,
  };
}
