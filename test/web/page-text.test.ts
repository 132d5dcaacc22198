/**
 * A downloaded body as the text web_fetch returns: HTML as Markdown with the main content and
 * its links made absolute (script text gone), text types decoded in their charset, a PDF's text,
 * and binary content described in one line, never returned.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageText } from '../../src/web/page-text.js';
import { pdfWith } from '../helpers/pdf-file.js';

const base = new URL('https://docs.example.org/guide/start.html');

test('HTML becomes Markdown: the article, its links absolute, scripts and styles gone', async () => {
  const paragraph = 'Loom weaves agents together into workflows that run for a long time. '.repeat(
    8,
  );
  const html = `<!doctype html><html><head><title>Getting started</title><style>.x{color:red}</style></head>
<body><nav><a href="/">Home</a> <a href="/blog">Blog</a></nav>
<script>console.log("tracking")</script>
<article><h1>Getting started</h1><p>${paragraph}</p>
<p>Read <a href="../reference/api.html#run">the API</a>, <a href="https://other.example.com/x">elsewhere</a>
and <a href="javascript:alert(1)">nothing</a>.</p><pre><code>loom run "hello"</code></pre>
<img src="img/diagram.png" alt="diagram"></article></body></html>`;
  const page = await pageText(Buffer.from(html), 'text/html; charset=utf-8', base, false);
  assert.equal(page.kind, 'markdown');
  assert.equal(page.title, 'Getting started');
  assert.match(page.text, /\[the API\]\(https:\/\/docs\.example\.org\/reference\/api\.html#run\)/);
  assert.match(page.text, /\[elsewhere\]\(https:\/\/other\.example\.com\/x\)/);
  assert.match(page.text, /!\[diagram\]\(https:\/\/docs\.example\.org\/guide\/img\/diagram\.png\)/);
  assert.match(page.text, /```\nloom run "hello"\n```/);
  assert.doesNotMatch(page.text, /javascript:|tracking|color:red/);
  assert.doesNotMatch(page.text, /\[Blog\]/, 'the navigation is not the main content');
});

test('a page with no article keeps its whole body, and <base href> sets where links lead', async () => {
  const html =
    '<html><head><base href="https://cdn.example.net/v2/"></head><body><a href="a.html">A</a></body></html>';
  const page = await pageText(Buffer.from(html), 'text/html', base, false);
  assert.match(page.text, /\[A\]\(https:\/\/cdn\.example\.net\/v2\/a\.html\)/);
});

test('text types come back as text in their charset; a missing type is sniffed', async () => {
  const json = await pageText(Buffer.from('{"a": 1}'), 'application/json', base, false);
  assert.deepEqual(json, { kind: 'text', text: '{"a": 1}' });
  const latin = await pageText(
    Buffer.from([0x63, 0x61, 0x66, 0xe9]),
    'text/plain; charset=iso-8859-1',
    base,
    false,
  );
  assert.equal(latin.text, 'café');
  const sniffedHtml = await pageText(
    Buffer.from('<!DOCTYPE html><html><body><p>hi <a href="/x">x</a></p></body></html>'),
    '',
    base,
    false,
  );
  assert.equal(sniffedHtml.kind, 'markdown');
  assert.match(sniffedHtml.text, /\[x\]\(https:\/\/docs\.example\.org\/x\)/);
});

test('a PDF comes back as its text; a cut PDF says why it cannot be read', async () => {
  const pdf = pdfWith('Quarterly figures rose');
  const page = await pageText(pdf, 'application/pdf', base, false);
  assert.equal(page.kind, 'pdf');
  assert.match(page.text, /^\[PDF, 1 page\]/);
  assert.match(page.text, /Quarterly figures rose/);
  const cut = await pageText(pdf.subarray(0, 100), 'application/pdf', base, true);
  assert.equal(cut.kind, 'binary');
  assert.match(cut.text, /cut at web\.maxBytes.*raise web\.maxBytes/);
});

test('binary content is described in one line, never returned', async () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
  const page = await pageText(png, 'image/png', base, false);
  assert.deepEqual(page, {
    kind: 'binary',
    text: '[image/png, 12 bytes of binary content: web_fetch reads only text, HTML and PDF]',
  });
  const unknown = await pageText(png, 'application/octet-stream', base, false);
  assert.match(unknown.text, /^\[application\/octet-stream, 12 bytes/);
});
