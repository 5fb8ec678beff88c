/**
 * The web console: `GET /console` answers the page, `GET /console/assets/<file>` the
 * files `npm run build` bundled into dist/console (scripts/buildConsole.mjs; nothing is loaded from
 * the network), `GET /` redirects to the console. All three are 404 unless the console is enabled
 * (`--enable-console`; by default on only with the embedded Postgres). The files are read once and
 * kept in memory; assets have hashed names and are cached for a year, the page is never cached.
 * Only names listed in the build directory are served, so no path can reach outside it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageInfo } from '../lib/index.js';
import type { EngineContext } from '../appState.js';
import type { HttpResponse, RequestContext } from './handlerTypes.js';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  map: 'application/json; charset=utf-8',
};
const SECURITY = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' };
const NOT_FOUND: HttpResponse = { status: 404, body: JSON.stringify({ path: '$', error: 'resource does not exist', code: 'not-found' }) };
/** `/console` (and `/`) while the console is off: says how to turn it on. */
const CONSOLE_OFF: HttpResponse = {
  status: 404,
  body: JSON.stringify({
    path: '$',
    error: 'the console is off: start the engine with --enable-console (or SVC_GRAPHQL_ENABLE_CONSOLE=true) to serve it here; it is on by default only with the embedded Postgres',
    code: 'not-found',
  }),
};

interface Built {
  page: Buffer | undefined;
  assets: Map<string, Buffer>;
}
let built: Built | undefined;

/** The files under dist/console (read once; a missing build leaves the page undefined). */
function load(): Built {
  if (built) return built;
  const dir = join(packageInfo().root, 'dist', 'console');
  const assets = new Map<string, Buffer>();
  let page: Buffer | undefined;
  try {
    page = readFileSync(join(dir, 'index.html'));
    for (const name of readdirSync(join(dir, 'assets'))) assets.set(name, readFileSync(join(dir, 'assets', name)));
  } catch {
    // not built: the handler says so
  }
  return (built = { page, assets });
}

const typeOf = (name: string): string => TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream';

export async function consoleAssets(req: RequestContext, ctx: EngineContext): Promise<HttpResponse> {
  if (!ctx.consoleEnabled) return req.path === '/console' || req.path === '/console/' ? CONSOLE_OFF : NOT_FOUND;
  return consoleFile(req.path);
}

/**
 * The answer for a GET of `path` (`/console`, `/console/assets/<file>`) from the built console: also
 * served by `svc-graphql-engine console --project` (cli/), which runs without an engine of its own.
 */
export function consoleFile(path: string): HttpResponse {
  const { page, assets } = load();
  if (path === '/console' || path === '/console/') {
    if (!page) return { status: 404, body: JSON.stringify({ path: '$', error: 'the console is not built: run npm run build (an installed package carries it built)', code: 'not-found' }) };
    return { status: 200, headers: { 'content-type': TYPES.html, 'cache-control': 'no-cache', ...SECURITY }, body: page };
  }
  const prefix = '/console/assets/';
  if (!path.startsWith(prefix)) return NOT_FOUND;
  const body = assets.get(path.slice(prefix.length));
  if (!body) return NOT_FOUND;
  return { status: 200, headers: { 'content-type': typeOf(path), 'cache-control': 'public, max-age=31536000, immutable', ...SECURITY }, body };
}

/** `GET /` → the console, when it is enabled. */
export async function consoleRedirect(_req: RequestContext, ctx: EngineContext): Promise<HttpResponse> {
  if (!ctx.consoleEnabled) return NOT_FOUND;
  return { status: 307, headers: { location: '/console' }, body: '' };
}
