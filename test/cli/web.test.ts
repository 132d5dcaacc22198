/**
 * web_fetch and web_search through bin/loom with the scripted model, against loopback servers
 * written here (issue 37): an HTML page comes back as Markdown with its links; a loopback URL is
 * refused while web.allowPrivate is false (no request reaches the server) and fetched when it is
 * true; a 10 MB body is cut at web.maxBytes; a prompt condenses the page in a side request whose
 * tokens are logged; a permission rule on the host denies; search results come from fake Brave
 * and SearXNG APIs, the key only in the request header and absent from every file Loom wrote;
 * without web.search the tool is not offered. A redirect from a public host to a private
 * address is refused with web.allowPrivate false: a preload (test/helpers/public-names-on-
 * loopback.mjs) resolves `public.test` to a public-looking address whose connections it routes
 * to loopback, so the first hop passes web_fetch's own address check and the redirected one
 * does not.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { assertNoCredential, homeOutputs } from '../helpers/credential-leaks.js';
import { pdfWith } from '../helpers/pdf-file.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { ndjsonLines, sessions, toolResults } from '../helpers/session-files.js';
import { runScripted, type ScriptedFolders, scriptedFolders } from './loom-process.js';

const TEN_MB = 10 * 1024 * 1024;
const SEARCH_KEY = 'brv-Test-5f0c9a7e2d4b8c1e6a3f9d0b';
/**
 * Named like no credential (not `*_KEY`, `*_TOKEN`...), so only web.search.apiKeyEnv makes Loom
 * treat it as one.
 */
const KEY_VARIABLE = 'LOOM_TEST_SEARCH_CREDENTIAL';

let server: Server;
let origin = '';
const requests: Array<{ url: string; headers: IncomingMessage['headers'] }> = [];

function page(response: ServerResponse): void {
  const words = 'The loom weaves many agents into one long-running workflow. '.repeat(10);
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(`<!doctype html><html><head><title>Loom guide</title></head><body>
<nav><a href="/">Home</a></nav><article><h1>Loom guide</h1><p>${words}</p>
<p>See <a href="/docs/workflows.html">the workflow docs</a> and <a href="https://example.com/ref">the reference</a>.</p>
</article></body></html>`);
}

function brave(url: URL, request: IncomingMessage, response: ServerResponse): void {
  if (request.headers['x-subscription-token'] !== SEARCH_KEY) {
    response.writeHead(401, { 'content-type': 'application/json' });
    // A provider that echoes the key it refused: the error must not carry it into the log.
    response.end(
      JSON.stringify({ error: `invalid token ${request.headers['x-subscription-token']}` }),
    );
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      type: 'search',
      query: { original: url.searchParams.get('q') },
      web: {
        type: 'search',
        results: [
          {
            title: 'Loom &amp; friends',
            url: 'https://loom.example/one',
            description: 'An <strong>agent</strong> harness',
          },
          { title: 'Second', url: 'https://loom.example/two', description: 'More on looms' },
          { title: 'Third', url: 'https://loom.example/three', description: 'Cut by count' },
        ],
      },
    }),
  );
}

before(async () => {
  server = createServer((request, response) => {
    requests.push({ url: request.url ?? '', headers: request.headers });
    const url = new URL(request.url ?? '/', 'http://localhost');
    switch (url.pathname) {
      case '/guide':
        return page(response);
      case '/moved':
        response.writeHead(301, { location: '/guide' });
        return response.end();
      case '/to-loopback':
        response.writeHead(302, { location: `${origin}/guide` });
        return response.end();
      case '/to-inside':
        response.writeHead(307, { location: `http://inside.test:${new URL(origin).port}/guide` });
        return response.end();
      case '/report.pdf':
        response.writeHead(200, { 'content-type': 'application/pdf' });
        return response.end(pdfWith('Quarterly figures rose'));
      case '/huge':
        response.writeHead(200, { 'content-type': 'text/plain' });
        return response.end(Buffer.alloc(TEN_MB, 'a'));
      case '/res/v1/web/search':
        return brave(url, request, response);
      case '/search':
        response.writeHead(200, { 'content-type': 'application/json' });
        return response.end(
          JSON.stringify({
            query: url.searchParams.get('q'),
            results: [
              { title: 'Searx hit', url: 'https://searx.example/a', content: 'From SearXNG' },
            ],
          }),
        );
      default:
        response.writeHead(404, { 'content-type': 'text/plain' });
        return response.end('no such page');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => server.close());

interface Event {
  type: string;
  data: {
    name?: string;
    content?: string;
    isError?: boolean;
    errorCode?: string;
    purpose?: string;
    details?: Record<string, unknown>;
  };
}

async function run(
  calls: Array<{ name: string; arguments: Record<string, unknown> }>,
  config: string,
  options: { env?: NodeJS.ProcessEnv; extraRules?: unknown[] } = {},
): Promise<{
  folders: ScriptedFolders;
  results: Event['data'][];
  events: Event[];
  stdout: string;
}> {
  const folders = scriptedFolders({
    rules: [
      ...(options.extraRules ?? []),
      callsThenReply(
        '^use the web$',
        calls.map((call) => [call]),
        'done',
      ),
    ],
  });
  writeFileSync(join(folders.home, 'config.yaml'), config);
  const result = await runScripted(folders, 'use the web', {
    json: true,
    ...(options.env ? { env: options.env } : {}),
  });
  assert.equal(result.code, 0, result.stderr);
  const events = ndjsonLines<Event>(result.stdout);
  return {
    folders,
    events,
    stdout: result.stdout,
    results: toolResults(events) as Event['data'][],
  };
}

const fetchCall = (url: string, prompt?: string) => ({
  name: 'web_fetch',
  arguments: { url, ...(prompt ? { prompt } : {}) },
});

test('loom run: web_fetch returns an HTML page as Markdown with absolute links, after a redirect', async () => {
  const { results } = await run([fetchCall(`${origin}/moved`)], 'web:\n  allowPrivate: true\n');
  const [fetched] = results;
  assert.ok(fetched);
  assert.equal(fetched.isError, false, fetched.content);
  const lines = (fetched.content ?? '').split('\n');
  assert.deepEqual(lines.slice(0, 3), [
    `URL: ${origin}/guide`,
    'Status: 200 OK',
    'Content-Type: text/html; charset=utf-8',
  ]);
  assert.match(fetched.content ?? '', /Redirected once from .*\/moved/);
  assert.match(fetched.content ?? '', /Title: Loom guide/);
  assert.match(
    fetched.content ?? '',
    new RegExp(`\\[the workflow docs\\]\\(${origin}/docs/workflows\\.html\\)`),
  );
  assert.match(fetched.content ?? '', /\[the reference\]\(https:\/\/example\.com\/ref\)/);
  assert.doesNotMatch(fetched.content ?? '', /<p>|<article>/);
});

test('loom run: with web.allowPrivate false a loopback URL or name is refused before any request', async () => {
  const before = requests.length;
  const port = new URL(origin).port;
  const { results } = await run(
    [
      fetchCall(`${origin}/guide`),
      fetchCall(`http://localhost:${port}/guide`),
      fetchCall('file:///etc/passwd'),
    ],
    '',
  );
  assert.equal(results.length, 3);
  for (const result of results.slice(0, 2)) {
    assert.equal(result.isError, true);
    assert.equal(result.errorCode, 'WEB_REFUSED');
    assert.match(result.content ?? '', /loopback address.*set web\.allowPrivate: true/);
  }
  assert.match(results[1]?.content ?? '', /localhost \(127\.0\.0\.1|localhost \(::1/);
  assert.match(results[2]?.content ?? '', /only http and https URLs, not file:/);
  assert.equal(requests.length, before, 'a request reached the loopback server');
});

test('loom run: with web.allowPrivate false a public host is fetched, and its redirects to private addresses are refused before any request', async () => {
  const port = new URL(origin).port;
  const publicOrigin = `http://public.test:${port}`;
  const before = requests.length;
  const { results } = await run(
    [
      fetchCall(`${publicOrigin}/guide`),
      fetchCall(`${publicOrigin}/to-loopback`),
      fetchCall(`${publicOrigin}/to-inside`),
    ],
    '',
    {
      env: {
        NODE_OPTIONS: `--import ${JSON.stringify(resolve('test/helpers/public-names-on-loopback.mjs'))}`,
        LOOM_TEST_NAMES: JSON.stringify({
          'public.test': '203.0.113.7',
          'inside.test': '10.1.2.3',
        }),
        LOOM_TEST_ROUTED: JSON.stringify(['203.0.113.7']),
      },
    },
  );
  assert.equal(results.length, 3);
  const [plain, toLoopback, toInside] = results;
  assert.equal(plain?.isError, false, plain?.content);
  assert.match(plain?.content ?? '', new RegExp(`^URL: ${publicOrigin}/guide$`, 'm'));
  assert.equal(toLoopback?.isError, true);
  assert.equal(toLoopback?.errorCode, 'WEB_REFUSED');
  assert.match(
    toLoopback?.content ?? '',
    new RegExp(
      `/to-loopback redirected to ${origin}/guide: refused to fetch 127\\.0\\.0\\.1: it is a loopback address.*set web\\.allowPrivate: true`,
    ),
  );
  assert.equal(toInside?.errorCode, 'WEB_REFUSED');
  assert.match(
    toInside?.content ?? '',
    /redirected to http:\/\/inside\.test:\d+\/guide: refused to fetch inside\.test \(10\.1\.2\.3\): it is a private address/,
  );
  assert.deepEqual(
    requests.slice(before).map((request) => `${request.headers.host} ${request.url}`),
    [
      `public.test:${port} /guide`,
      `public.test:${port} /to-loopback`,
      `public.test:${port} /to-inside`,
    ],
    'the redirected hops never reached a server',
  );
});

test('loom run: web_fetch reads a PDF as its text', async () => {
  const { results } = await run(
    [fetchCall(`${origin}/report.pdf`)],
    'web:\n  allowPrivate: true\n',
  );
  const [fetched] = results;
  assert.equal(fetched?.isError, false, fetched?.content);
  assert.match(fetched?.content ?? '', /^Content-Type: application\/pdf$/m);
  assert.match(fetched?.content ?? '', /Quarterly figures rose/);
});

test('loom run: a 10 MB body is cut at web.maxBytes and the result capped like bash output', async () => {
  const { results } = await run([fetchCall(`${origin}/huge`)], 'web:\n  allowPrivate: true\n');
  const [fetched] = results;
  assert.ok(fetched);
  assert.match(
    fetched.content ?? '',
    /Cut: the body is larger than web\.maxBytes \(5242880 bytes\); only its first 5242880 bytes were read/,
  );
  assert.ok(
    (fetched.content ?? '').length < 40_000,
    `${(fetched.content ?? '').length} characters`,
  );
  assert.match(fetched.content ?? '', /characters cut/);
  assert.equal(fetched.details?.bytes, 5 * 1024 * 1024);
  assert.equal(fetched.details?.truncated, true);
});

test('loom run: web_fetch with a prompt returns the model condensed answer and logs its tokens', async () => {
  const { results, folders } = await run(
    [fetchCall(`${origin}/guide`, 'Which docs does the guide point to?')],
    'web:\n  allowPrivate: true\n',
    {
      extraRules: [
        {
          when: '^Which docs does the guide point to\\?[\\s\\S]*the workflow docs',
          reply: 'It points to the workflow docs.',
        },
      ],
    },
  );
  const [fetched] = results;
  assert.ok(fetched);
  assert.match(fetched.content ?? '', /^URL: .*\/guide$/m);
  assert.match(fetched.content ?? '', /Condensed by scripted:.* for the prompt: Which docs/);
  assert.match(fetched.content ?? '', /It points to the workflow docs\.$/);
  assert.doesNotMatch(fetched.content ?? '', /long-running workflow\. The loom/);
  const [session] = sessions(folders.home);
  const side = session?.events.filter((event) => event.type === 'model/side-request') ?? [];
  assert.equal(side.length, 1);
  assert.equal((side[0]?.data as { purpose?: string } | undefined)?.purpose, 'web-fetch');
});

test('loom run: a permission rule on the host denies web_fetch there', async () => {
  const before = requests.length;
  const { results } = await run(
    [fetchCall(`${origin}/guide`)],
    'web:\n  allowPrivate: true\npermissions:\n  - tool: web_fetch\n    match: { host: "127.0.0.*" }\n    action: deny\n    reason: no local pages\n',
  );
  assert.equal(results[0]?.isError, true);
  assert.match(results[0]?.content ?? '', /no local pages/);
  assert.equal(requests.length, before);
});

test('loom run: web_search lists Brave results; the key goes in the header and nowhere in the files', async () => {
  const env = { [KEY_VARIABLE]: SEARCH_KEY };
  const config = `web:\n  search: { provider: brave, apiKeyEnv: ${KEY_VARIABLE}, url: "${origin}" }\n`;
  const { results, folders, stdout } = await run(
    [{ name: 'web_search', arguments: { query: 'agent harness', count: 2 } }],
    config,
    { env },
  );
  const [found] = results;
  assert.ok(found);
  assert.equal(found.isError, false, found.content);
  assert.equal(
    found.content,
    'Results for "agent harness" (brave):\n\n' +
      '1. Loom & friends\n   https://loom.example/one\n   An agent harness\n\n' +
      '2. Second\n   https://loom.example/two\n   More on looms',
  );
  const searched = requests
    .filter((request) => request.url.startsWith('/res/v1/web/search'))
    .at(-1);
  assert.ok(searched);
  assert.equal(new URL(searched.url, origin).searchParams.get('q'), 'agent harness');
  assert.equal(new URL(searched.url, origin).searchParams.get('count'), '2');
  assert.equal(searched.headers['x-subscription-token'], SEARCH_KEY);
  assert.equal(sessions(folders.home).length, 1, 'the session file is among the files checked');
  assertNoCredential({ ...homeOutputs(folders.home), '--json output': stdout }, [
    { label: 'the search key', asSet: SEARCH_KEY },
  ]);
});

test('loom run: a provider that echoes a refused key leaves no trace of it in the files', async () => {
  // The configured key is sent, refused by a fake that expects another, and echoed in the 401
  // body the error result quotes: the key is a credential, so it is redacted there too.
  const wrongKey = 'brv-Wrong-8d7c6b5a4f3e2d1c0b9a8f7e';
  const config = `web:\n  search: { provider: brave, apiKeyEnv: ${KEY_VARIABLE}, url: "${origin}/res/v1/web/search" }\n`;
  const { results, folders, stdout } = await run(
    [{ name: 'web_search', arguments: { query: 'x' } }],
    config,
    {
      env: { [KEY_VARIABLE]: wrongKey },
    },
  );
  assert.equal(results[0]?.isError, true);
  assert.equal(results[0]?.errorCode, 'WEB_SEARCH_FAILED');
  assert.match(results[0]?.content ?? '', /brave at .* answered 401.*invalid token \[redacted\]/);
  assert.equal(sessions(folders.home).length, 1, 'the session file is among the files checked');
  assertNoCredential({ ...homeOutputs(folders.home), '--json output': stdout }, [
    { label: 'the refused key', asSet: wrongKey },
  ]);
});

test('loom run: web_search through SearXNG needs no key', async () => {
  const { results } = await run(
    [{ name: 'web_search', arguments: { query: 'loom' } }],
    `web:\n  search: { provider: searxng, url: "${origin}" }\n`,
  );
  assert.equal(
    results[0]?.content,
    'Results for "loom" (searxng):\n\n1. Searx hit\n   https://searx.example/a\n   From SearXNG',
  );
  const searched = requests.filter((request) => request.url.startsWith('/search?')).at(-1);
  assert.equal(new URL(searched?.url ?? '', origin).searchParams.get('format'), 'json');
});

test('loom run: without web.search, web_search is not offered', async () => {
  const { results } = await run([{ name: 'web_search', arguments: { query: 'loom' } }], '');
  assert.equal(results[0]?.isError, true);
  assert.equal(results[0]?.errorCode, 'UNKNOWN_TOOL');
});
