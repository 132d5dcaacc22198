/**
 * Reads a run report as a browser would: parses it with parse5 (the HTML standard's parser) and
 * offers the few queries the report tests need. Test-only; it never renders or runs the page.
 */
import { type DefaultTreeAdapterTypes, parse } from 'parse5';

export type HtmlElement = DefaultTreeAdapterTypes.Element;
type HtmlNode = DefaultTreeAdapterTypes.ChildNode | DefaultTreeAdapterTypes.Document;

function childrenOf(node: HtmlNode): DefaultTreeAdapterTypes.ChildNode[] {
  if ('content' in node && node.nodeName === 'template') return node.content.childNodes;
  return 'childNodes' in node ? node.childNodes : [];
}

export interface ReportTree {
  /** Every element, in document order. */
  elements: HtmlElement[];
  byTag(tag: string): HtmlElement[];
  byId(id: string): HtmlElement | undefined;
}

export function parseReport(html: string): ReportTree {
  const document = parse(html);
  const elements: HtmlElement[] = [];
  const visit = (node: HtmlNode) => {
    if ('tagName' in node) elements.push(node);
    for (const child of childrenOf(node)) visit(child);
  };
  visit(document);
  return {
    elements,
    byTag: (tag) => elements.filter((element) => element.tagName === tag),
    byId: (id) => elements.find((element) => attribute(element, 'id') === id),
  };
}

export function attribute(element: HtmlElement, name: string): string | undefined {
  return element.attrs.find((attr) => attr.name === name)?.value;
}

/** The text inside `element`, as `textContent` gives it. */
export function textOf(element: DefaultTreeAdapterTypes.ChildNode): string {
  if (element.nodeName === '#text') return (element as DefaultTreeAdapterTypes.TextNode).value;
  return childrenOf(element)
    .map((child) => textOf(child))
    .join('');
}

/** Elements under `root` (itself included) with tag `tag`. */
export function within(root: HtmlElement, tag: string): HtmlElement[] {
  const found: HtmlElement[] = [];
  const visit = (node: HtmlNode) => {
    if ('tagName' in node && node.tagName === tag) found.push(node);
    for (const child of childrenOf(node)) visit(child);
  };
  visit(root);
  return found;
}

/** Attributes that make a browser fetch or navigate. */
const FETCHING_ATTRIBUTES = [
  'src',
  'href',
  'xlink:href',
  'action',
  'formaction',
  'poster',
  'srcset',
  'data',
  'background',
  'ping',
];
const FETCHING_TAGS = [
  'link',
  'img',
  'iframe',
  'object',
  'embed',
  'base',
  'form',
  'audio',
  'video',
];

/** Every way the page could reach outside itself; empty for a self-contained page. */
export function externalReferences(html: string, tree: ReportTree): string[] {
  const found: string[] = [];
  for (const scheme of ['http://', 'https://', 'ftp://', 'file:']) {
    if (html.toLowerCase().includes(scheme)) found.push(`the text holds ${scheme}`);
  }
  for (const element of tree.elements) {
    if (FETCHING_TAGS.includes(element.tagName)) found.push(`a <${element.tagName}> element`);
    for (const attr of element.attrs) {
      const name = attr.prefix ? `${attr.prefix}:${attr.name}` : attr.name;
      if (FETCHING_ATTRIBUTES.includes(name) && !attr.value.startsWith('#')) {
        found.push(`<${element.tagName} ${name}="${attr.value}">`);
      }
      if (/url\(|@import/i.test(attr.value)) found.push(`<${element.tagName} ${name}> loads`);
    }
  }
  for (const style of tree.byTag('style')) {
    if (/url\(|@import/i.test(textOf(style))) found.push('the style sheet loads something');
  }
  return found;
}
