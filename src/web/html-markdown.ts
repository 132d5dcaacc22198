/**
 * An HTML page as Markdown: linkedom parses it (a DOM without a browser), Mozilla's Readability
 * picks the main content as Firefox's reader view does (else the whole body is kept), and
 * turndown writes Markdown. Links and images are made absolute against the page's URL (or its
 * `<base href>`) first, so they still lead somewhere; scripts, styles and frames are dropped.
 * The three libraries load at the first page (page-libraries.ts), never at start. Never runs the page's scripts.
 */

const DROPPED = 'script, style, noscript, template, iframe, object, embed, svg, canvas';

export interface PageMarkdown {
  title: string;
  markdown: string;
  /** Readability found a main article; false: the whole body was converted. */
  article: boolean;
}

/** An attribute's URL made absolute; undefined for one that is no web link (`javascript:`). */
function absolute(value: string, base: URL): string | undefined {
  try {
    const url = new URL(value, base);
    return ['http:', 'https:', 'mailto:', 'ftp:'].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export async function htmlToMarkdown(html: string, url: URL): Promise<PageMarkdown> {
  const { parseHTML, Readability, TurndownService } = await import('./page-libraries.js');
  const { document } = parseHTML(html);
  for (const element of [...document.querySelectorAll(DROPPED)]) element.remove();
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  const base = (baseHref && absolute(baseHref, url)) || url.href;
  for (const [selector, attribute] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const element of [...document.querySelectorAll(selector)]) {
      const made = absolute(element.getAttribute(attribute) ?? '', new URL(base));
      if (made !== undefined) element.setAttribute(attribute, made);
      else element.removeAttribute(attribute);
    }
  }
  const title = (document.querySelector('title')?.textContent ?? '').trim();
  const bodyHtml = document.body?.innerHTML ?? document.documentElement?.outerHTML ?? '';
  // Readability changes the document it reads: it reads a copy, so the body stays whole.
  const found = new Readability(document.cloneNode(true) as Document).parse();
  const content = found?.content && found.textContent?.trim() ? found.content : bodyHtml;
  const converter = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  });
  return {
    title: found?.title?.trim() || title,
    markdown: converter.turndown(content).trim(),
    article: content !== bodyHtml,
  };
}
