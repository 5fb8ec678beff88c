#!/usr/bin/env node
// The project's black-box conformance runner (Hasura v1.3 behaviour, "svc" branding): runs the
// cases of ./cases against an engine over HTTP and reports, per group, what passed and what failed;
// with --baseline it is the ratchet CI applies (tests/conformance-baseline.json).
// Plain Node 20 ESM, zero dependencies. See README.md in this folder for the case format; the
// cases are data derived from Hasura's test suite (LICENSE, NOTICE), the runner is our own code.
//
//   node tests/conformance/run.mjs --url http://127.0.0.1:8080 [--admin-secret S] [--only graphql_query/basic]
//        [--json out.json] [--with allowlist] [--jwt-key K] ...   (--help for all flags)
//
// tests/support/mainConformance.mjs and the gated scripts beside it start an engine and run this
// file against it; .ci/run runs them all.
//
// With --with events / --with scheduled_triggers the runner itself plays the webhook receivers
// (127.0.0.1:5592 and 127.0.0.1:5594), records every request and lets cases assert on them
// (step kinds expect_webhook / expect_no_webhook / sleep_ms; see README "Webhook deliveries").

import { readFileSync, readdirSync, existsSync, writeFileSync, statSync } from 'node:fs';
import { join, dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHmac, createSign, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const HERE = dirname(fileURLToPath(import.meta.url));
const REQUEST_TIMEOUT_MS = 10_000;

const HELP = `usage: node tests/conformance/run.mjs --url <base-url> [options]

  --url URL                  engine base URL (required), e.g. http://127.0.0.1:8080
  --admin-secret S           send X-Svc-Admin-Secret: S on every non-JWT request
                             (like Hasura's harness when an admin secret is configured)
  --only LIST                comma-separated group prefixes or group/case names
                             (e.g. graphql_query/basic,metadata or graphql_query/basic/select_query_author)
  --json FILE                write detailed results as JSON
  --with LIST                enable capability-gated groups/cases, e.g. --with allowlist
                             (allowlist: server started with the allow-list enabled)
  --include-stale            also compare responses of steps marked "stale"
  --include-slow             also run cases marked "slow": true (e.g. cron deliveries, up to ~70 s each)
  --max-diffs N              print a diff for the first N failures (default 10)
  --cases DIR                corpus directory (default: <this folder>/cases)
  --no-preclean              do not run a group's teardown (errors ignored) before its setup
  --verbose                  print every case result
  --baseline FILE            ratchet: FILE is a JSON list of "group/case" ids that passed before;
                             any of them that fails now is a regression: the run exits 1
  --update-baseline FILE     write the ids that pass now to FILE (ids of groups not run this
                             time are kept), so the baseline only grows as cases are fixed
  JWT (enables the auth/jwt group; the server must use the same key):
  --jwt-key K                HMAC secret (HS256 unless --jwt-alg says HS384/HS512)
  --jwt-private-key-file F   PEM private key for RS256/RS384/RS512 (set --jwt-alg)
  --jwt-alg ALG              HS256 (default with --jwt-key) | HS384 | HS512 | RS256 | RS384 | RS512
  --jwt-claims-namespace NS  default https://svc.io/jwt/claims
  --jwt-claims-format F      json (default) | stringified_json
  --jwt-audience A           the server's configured audience (enables audience cases)
  --jwt-issuer I             the server's configured issuer (enables issuer cases)
  Webhook receivers (started by --with events / --with scheduled_triggers; see README):
  --webhook-host H           address the receivers listen on (default 127.0.0.1)
  --events-port N            event-trigger receiver port (default 5592)
  --scheduled-port N         scheduled-trigger receiver port (default 5594)
                             (setups name 127.0.0.1:5592/5594 literally, as Hasura's did: change
                             these only if the engine reaches the runner through a proxy)
  --help                     this text

Exit status: 0 after a complete run (whatever the results), 2 if the server is unreachable,
1 on bad usage or, with --baseline, on a regression. The last line is "conformance: N passed,
M failed", or with --baseline "baseline: N passed, M failed" (M = regressions).`;

// ------------------------------------------------------------------ args
function parseArgs(argv) {
  const o = { maxDiffs: 10, with: new Set(), only: [], preclean: true, webhookHost: '127.0.0.1', eventsPort: 5592, scheduledPort: 5594 };
  const need = (i) => {
    if (i + 1 >= argv.length) usage(`missing value for ${argv[i]}`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    switch (a) {
      case '--help': case '-h': o.help = true; break;
      case '--url': o.url = need(i); i++; break;
      case '--admin-secret': o.adminSecret = need(i); i++; break;
      case '--only': o.only.push(...need(i).split(',').map((s) => s.trim()).filter(Boolean)); i++; break;
      case '--json': o.json = need(i); i++; break;
      case '--with': need(i).split(',').map((s) => s.trim()).filter(Boolean).forEach((s) => o.with.add(s)); i++; break;
      case '--include-stale': o.includeStale = true; break;
      case '--include-slow': o.includeSlow = true; break;
      case '--webhook-host': o.webhookHost = need(i); i++; break;
      case '--events-port': o.eventsPort = portArg(need(i)); i++; break;
      case '--scheduled-port': o.scheduledPort = portArg(need(i)); i++; break;
      case '--max-diffs': o.maxDiffs = Number(need(i)); i++; break;
      case '--cases': o.cases = need(i); i++; break;
      case '--no-preclean': o.preclean = false; break;
      case '--verbose': o.verbose = true; break;
      case '--baseline': o.baseline = need(i); i++; break;
      case '--update-baseline': o.updateBaseline = need(i); i++; break;
      case '--jwt-key': o.jwtKey = need(i); i++; break;
      case '--jwt-private-key-file': o.jwtKeyFile = need(i); i++; break;
      case '--jwt-alg': o.jwtAlg = need(i).toUpperCase(); i++; break;
      case '--jwt-claims-namespace': o.jwtNs = need(i); i++; break;
      case '--jwt-claims-format': o.jwtFormat = need(i); i++; break;
      case '--jwt-audience': o.jwtAud = need(i); i++; break;
      case '--jwt-issuer': o.jwtIss = need(i); i++; break;
      default: usage(`unknown argument: ${a}`);
    }
  }
  return o;
}

function portArg(v) {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 65535) usage(`not a port number: ${v}`);
  return n;
}

function usage(msg) {
  console.error(msg);
  console.error('run with --help for usage');
  process.exit(1);
}

// ------------------------------------------------------------------ JSON comparison
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const show = (v) => {
  let s;
  try { s = JSON.stringify(v); } catch { s = String(v); }
  if (s === undefined) s = 'undefined';
  return s.length > 200 ? s.slice(0, 200) + '…' : s;
};

// special expected-value tokens (see README)
function tokenMatch(exp, act, ctx) {
  switch (exp) {
    case '$$any': return act !== undefined;
    case '$$string': return typeof act === 'string';
    case '$$number': return typeof act === 'number';
    case '$$boolean': return typeof act === 'boolean';
    case '$$is_admin_secret_set': return act === Boolean(ctx.opts.adminSecret);
    case '$$is_jwt_set': return act === Boolean(ctx.jwt);
    case '$$jwt_config':
      if (!ctx.jwt) return act === null;
      return isObj(act) && act.claims_namespace === ctx.jwt.ns && act.claims_format === ctx.jwt.format;
    default:
      if (exp.startsWith('$$var:')) {
        const name = exp.slice(6);
        return Boolean(ctx.vars) && Object.prototype.hasOwnProperty.call(ctx.vars, name) && jsonEqual(ctx.vars[name], act);
      }
      if (exp.startsWith('$$regex:')) {
        try { return typeof act === 'string' && new RegExp(exp.slice(8)).test(act); } catch { return false; }
      }
      return null; // not a token
  }
}

// JSON equality (object key order ignored, 1 == 1.0)
function jsonEqual(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObj(a)) {
    if (!isObj(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

function tokenNote(exp, ctx) {
  if (typeof exp === 'string' && exp.startsWith('$$var:')) {
    const name = exp.slice(6);
    return ctx.vars && Object.prototype.hasOwnProperty.call(ctx.vars, name) ? ` (${name} = ${show(ctx.vars[name])})` : ` (variable ${name} was never captured)`;
  }
  return '';
}

// returns a list of difference strings (empty = match). mode: exact | subset
function diff(exp, act, ctx, mode, path = '$', out = []) {
  if (out.length >= 12) return out;
  if (typeof exp === 'string' && exp.startsWith('$$')) {
    const t = tokenMatch(exp, act, ctx);
    if (t !== null) {
      if (!t) out.push(`${path}: expected ${exp}${tokenNote(exp, ctx)}, got ${show(act)}`);
      return out;
    }
  }
  // {"$$exact": v} / {"$$subset": v}: compare this subtree in that mode
  if (isObj(exp) && Object.keys(exp).length === 1 && ('$$exact' in exp || '$$subset' in exp)) {
    return '$$exact' in exp ? diff(exp.$$exact, act, ctx, 'exact', path, out) : diff(exp.$$subset, act, ctx, 'subset', path, out);
  }
  if (Array.isArray(exp)) {
    if (!Array.isArray(act)) { out.push(`${path}: expected array, got ${show(act)}`); return out; }
    if (exp.length !== act.length) out.push(`${path}: expected ${exp.length} element(s), got ${act.length}`);
    const n = Math.min(exp.length, act.length);
    for (let i = 0; i < n && out.length < 12; i++) diff(exp[i], act[i], ctx, mode, `${path}[${i}]`, out);
    return out;
  }
  if (isObj(exp)) {
    if (!isObj(act)) { out.push(`${path}: expected object, got ${show(act)}`); return out; }
    for (const k of Object.keys(exp)) {
      if (exp[k] === '$$absent') {
        if (k in act) out.push(`${path}.${k}: expected no such key, got ${show(act[k])}`);
        continue;
      }
      if (!(k in act)) { out.push(`${path}.${k}: missing (expected ${show(exp[k])})`); continue; }
      diff(exp[k], act[k], ctx, mode, `${path}.${k}`, out);
    }
    if (mode === 'exact') {
      for (const k of Object.keys(act)) if (!(k in exp)) out.push(`${path}.${k}: unexpected key (got ${show(act[k])})`);
    }
    return out;
  }
  if (exp !== act) out.push(`${path}: expected ${show(exp)}, got ${show(act)}`);
  return out;
}

function errorCodes(body) {
  const codes = [];
  if (isObj(body) && Array.isArray(body.errors)) {
    for (const e of body.errors) codes.push(isObj(e) ? (isObj(e.extensions) ? e.extensions.code : e.code) : undefined);
  } else if (Array.isArray(body)) {
    for (const b of body) codes.push(...errorCodes(b));
  } else if (isObj(body) && 'code' in body) {
    codes.push(body.code);
  }
  return codes;
}

function compareErrorCodes(exp, act) {
  const e = errorCodes(exp);
  const a = errorCodes(act);
  if (e.includes('$$any')) return a.length > 0 ? [] : [`expected an error response, got ${show(act)}`];
  const es = [...e].sort().join(',');
  const as = [...a].sort().join(',');
  return es === as ? [] : [`error codes: expected [${es}], got [${as}] (${show(act)})`];
}

function compareExplain(exp, act) {
  const out = [];
  const entryOk = (x, p) => {
    if (!isObj(x)) { out.push(`${p}: expected object, got ${show(x)}`); return; }
    if (typeof x.sql !== 'string') out.push(`${p}.sql: expected string, got ${show(x.sql)}`);
    if (!Array.isArray(x.plan) || !x.plan.every((l) => typeof l === 'string')) out.push(`${p}.plan: expected array of strings, got ${show(x.plan)}`);
  };
  if (Array.isArray(exp)) {
    if (!Array.isArray(act)) return [`$: expected array of {field, sql, plan}, got ${show(act)}`];
    if (act.length !== exp.length) out.push(`$: expected ${exp.length} entr(y/ies), got ${act.length}`);
    act.forEach((x, i) => {
      entryOk(x, `$[${i}]`);
      if (exp[i] && isObj(x) && x.field !== exp[i].field) out.push(`$[${i}].field: expected ${show(exp[i].field)}, got ${show(x.field)}`);
    });
  } else {
    entryOk(act, '$');
  }
  return out;
}

// A step whose file gives only a status still has to look like a success: a GraphQL
// response with data and no errors, or a metadata answer that is not an error object.
function successShape(url, body, request) {
  if (url === '/v1/query' && isObj(request) && request.type === 'bulk' && Array.isArray(request.args)) {
    if (!Array.isArray(body) || body.length !== request.args.length) return [`expected a list of ${request.args.length} bulk results, got ${show(body)}`];
  }
  if (url === '/v1/query' && isObj(request) && request.type === 'export_metadata' && !(isObj(body) && ('tables' in body || 'version' in body))) {
    return [`expected exported metadata, got ${show(body)}`];
  }
  const one = (b) => {
    if (url.startsWith('/v1/graphql')) {
      if (!isObj(b) || !isObj(b.data) || 'errors' in b) return [`expected a GraphQL success {data}, got ${show(b)}`];
      return [];
    }
    if (b === undefined) return ['expected a JSON body, got none'];
    if (isObj(b) && typeof b.code === 'string' && typeof b.error === 'string') return [`expected success, got error ${show(b)}`];
    return [];
  };
  if (Array.isArray(body) && url.startsWith('/v1/graphql')) return body.flatMap(one);
  return one(body);
}

function compareResponse(step, actual, ctx) {
  const mode = step.match || 'exact';
  let act = actual;
  if (step.response_path && isObj(act) && step.response_path in act) act = act[step.response_path];
  const candidates = step.allowed_responses || [step.response];
  let best = null;
  for (const exp of candidates) {
    let d;
    if (mode === 'error-code-only') d = compareErrorCodes(exp, act);
    else if (mode === 'explain') d = compareExplain(exp, act);
    else d = diff(exp, act, ctx, mode === 'subset' ? 'subset' : 'exact');
    if (d.length === 0) return [];
    if (!best || d.length < best.length) best = d;
  }
  return best;
}

// ------------------------------------------------------------------ JWT
const b64url = (buf) => Buffer.from(buf).toString('base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');

function makeJwtCtx(opts) {
  if (!opts.jwtKey && !opts.jwtKeyFile) return null;
  const alg = opts.jwtAlg || (opts.jwtKey ? 'HS256' : 'RS256');
  const key = opts.jwtKey ?? readFileSync(opts.jwtKeyFile, 'utf8');
  return { alg, key, ns: opts.jwtNs || 'https://svc.io/jwt/claims', format: opts.jwtFormat || 'json', aud: opts.jwtAud, iss: opts.jwtIss };
}

function signJwt(payload, alg, key) {
  const header = b64url(JSON.stringify({ alg, typ: 'JWT' }));
  const body = b64url(JSON.stringify(payload));
  const input = `${header}.${body}`;
  const bits = alg.slice(2);
  let sig;
  if (alg.startsWith('HS')) sig = createHmac(`sha${bits}`, key).update(input).digest();
  else if (alg.startsWith('RS')) sig = createSign(`RSA-SHA${bits}`).update(input).sign(key);
  else throw new Error(`unsupported JWT alg ${alg}`);
  return `${input}.${b64url(sig)}`;
}

function tokenFor(spec, jwt) {
  const now = Math.floor(Date.now() / 1000);
  const payload = { sub: '1234567890', name: 'John Doe', iat: now, exp: now + (spec.exp_offset_s ?? 36000) };
  payload[jwt.ns] = jwt.format === 'stringified_json' ? JSON.stringify(spec.claims) : spec.claims;
  Object.assign(payload, spec.extra || {});
  if (spec.aud_from_config) payload.aud = jwt.aud;
  if (spec.iss_from_config) payload.iss = jwt.iss;
  if (spec.bad_signature) return signJwt(payload, 'HS256', randomBytes(32).toString('hex'));
  return signJwt(payload, jwt.alg, jwt.key);
}

// ------------------------------------------------------------------ HTTP
class Unreachable extends Error {}
const totals = { passed: 0, failed: 0, skipped: 0 };

async function send(ctx, { url, method = 'POST', headers = {}, body, tag }) {
  const h = { ...headers };
  if (tag) h['X-Conformance-Case'] = tag;
  const init = { method, headers: h, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) };
  if (method !== 'GET' && method !== 'HEAD') {
    h['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body === undefined ? null : body);
  }
  let res;
  try {
    res = await fetch(ctx.base + url, init);
  } catch (e) {
    const cause = e?.cause?.code || e?.name || String(e);
    ctx.netErrors++;
    if (ctx.netErrors >= 5 && !(await reachable(ctx.base))) throw new Unreachable(`server unreachable: ${cause}`);
    return { status: 0, body: undefined, error: `request failed: ${cause}` };
  }
  ctx.netErrors = 0;
  let text = '';
  try {
    text = await res.text();
  } catch (e) {
    return { status: res.status, body: undefined, error: `reading body failed: ${e?.name || e}` };
  }
  try {
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  } catch {
    return { status: res.status, body: undefined, error: `non-JSON response body: ${show(text)}` };
  }
}

async function reachable(base) {
  try {
    const r = await fetch(base + '/healthz', { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    await r.arrayBuffer().catch(() => {});
    return true;
  } catch {
    return false;
  }
}

// ------------------------------------------------------------------ webhook receivers
// The runner plays the webhook servers of Hasura's Python harness (context.py EvtsWebhookHandler,
// used for event triggers on :5592 and scheduled triggers on :5594). Every POST is recorded;
// what each path answers is listed in WEBHOOK_PATHS (README "Webhook deliveries").
const WEBHOOK_SERVERS = { events: 'events', scheduled_triggers: 'scheduled_triggers', scheduled: 'scheduled_triggers' };
const WEBHOOK_PATHS = {
  '/fail': { status: 500 },                      // Hasura: 500, counted as an error
  '/timeout_short': { status: 204, delayMs: 5000 }, // Hasura v1.3: sleeps 5 s, then 204
  '/timeout_long': { status: 204, delayMs: 5000 },  // Hasura v1.3: sleeps 5 s, then 204
  '/sleep_2s': { status: 204, delayMs: 2000 },      // Hasura 2.x: sleeps 2 s, then 204
  '/retry_after_once': { retryAfterOnce: 2 },       // ours: 503 + Retry-After: 2 the first time a body id is seen, then 204
};
const MAX_WEBHOOK_LOG = 20000;

class WebhookReceiver {
  constructor(name, host, port) {
    this.name = name;
    this.host = host;
    this.port = port;
    this.log = [];
    this.seq = 0;
    this.mark = 0;         // requests with seq <= mark belong to an earlier scope
    this.error = null;     // set when the receiver could not listen
    this.seenIds = new Set();
    this.server = null;
  }

  get addr() { return `${this.host}:${this.port}`; }

  start() {
    return new Promise((resolve) => {
      let srv;
      try {
        srv = createServer((req, res) => this.handle(req, res));
      } catch (e) {
        this.error = `cannot start the ${this.name} webhook receiver: ${e.message}`;
        resolve();
        return;
      }
      srv.on('clientError', (_err, socket) => { try { socket.destroy(); } catch { /* ignore */ } });
      srv.once('error', (e) => {
        this.error = `cannot listen on ${this.addr} for the ${this.name} webhook: ${e.code || e.message}`;
        resolve();
      });
      srv.listen(this.port, this.host, () => {
        this.server = srv;
        srv.on('error', () => {});
        resolve();
      });
    });
  }

  close() {
    if (!this.server) return;
    try { this.server.close(); this.server.closeAllConnections?.(); } catch { /* ignore */ }
    this.server = null;
  }

  handle(req, res) {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => { size += c.length; if (size <= 8 * 1024 * 1024) chunks.push(c); });
    req.on('error', () => {});
    res.on('error', () => {});
    req.on('end', () => {
      if (req.method !== 'POST') { // Hasura's do_GET: 200, nothing recorded
        res.writeHead(200);
        res.end();
        return;
      }
      const text = Buffer.concat(chunks).toString('utf8');
      let body;
      let bodyText;
      try { body = text === '' ? undefined : JSON.parse(text); } catch { bodyText = text; }
      const url = req.url || '/';
      const pathname = url.split('?')[0];
      const entry = {
        seq: ++this.seq, server: this.name, method: req.method, path: url, headers: { ...req.headers },
        body, time: Date.now(), state: 'pending', consumed: false,
      };
      if (bodyText !== undefined) entry.body_text = bodyText.length > 2000 ? bodyText.slice(0, 2000) + '…' : bodyText;
      this.log.push(entry);
      if (this.log.length > MAX_WEBHOOK_LOG) this.log.splice(0, this.log.length - MAX_WEBHOOK_LOG);
      const beh = WEBHOOK_PATHS[pathname] || { status: 204 };
      let status = beh.status ?? 204;
      const headers = {};
      if (beh.retryAfterOnce) {
        const id = isObj(body) && typeof body.id === 'string' ? body.id : text;
        if (this.seenIds.has(id)) status = 204;
        else {
          this.seenIds.add(id);
          status = 503;
          headers['Retry-After'] = String(beh.retryAfterOnce);
        }
      }
      entry.answer = status;
      res.on('finish', () => { entry.state = 'answered'; });
      res.on('close', () => { if (!res.writableFinished) entry.state = 'aborted'; });
      const respond = () => {
        if (res.destroyed || res.writableEnded) { entry.state = 'aborted'; return; }
        try {
          res.writeHead(status, headers);
          res.end();
        } catch { entry.state = 'aborted'; }
      };
      if (beh.delayMs) setTimeout(respond, beh.delayMs);
      else respond();
    });
  }

  // requests of the current scope that no expectation has consumed yet
  pending() {
    return this.log.filter((e) => e.seq > this.mark && !e.consumed);
  }
}

// what an expectation's "match" is compared with
function webhookView(e) {
  const v = { method: e.method, path: e.path, headers: e.headers, body: e.body, state: e.state, answer: e.answer, time: e.time };
  if (e.body_text !== undefined) v.body_text = e.body_text;
  return v;
}

function lowerHeaderKeys(match) {
  if (!isObj(match) || !isObj(match.headers)) return match;
  const h = {};
  for (const [k, v] of Object.entries(match.headers)) h[k.toLowerCase()] = v;
  return { ...match, headers: h };
}

function matchWebhook(match, e, ctx) {
  return diff(lowerHeaderKeys(match || {}), webhookView(e), ctx, 'subset');
}

function receiverFor(ctx, spec) {
  const key = WEBHOOK_SERVERS[spec.server || 'events'];
  if (!key) return { error: `unknown webhook server ${show(spec.server)} (use "events" or "scheduled_triggers")` };
  const r = ctx.hooks[key];
  if (!r) return { error: `the ${key} webhook receiver is not running: run with --with ${key}` };
  if (r.error) return { error: r.error };
  return { r };
}

// a short description of a recorded request for failure output
function webhookBrief(e) {
  const v = { path: e.path, state: e.state, answer: e.answer };
  if (isObj(e.body)) {
    const b = e.body;
    if (isObj(b.trigger)) v.trigger = b.trigger.name;
    if (isObj(b.event)) { v.op = b.event.op; v.data = b.event.data; }
    if ('name' in b && !('trigger' in b)) v.name = b.name;
    if ('payload' in b && !isObj(b.event)) v.payload = b.payload;
  } else if (e.body_text !== undefined) v.body_text = e.body_text;
  return v;
}

// the recorded request as shown next to a failure: body first, only the headers the case names
function failureView(e, match) {
  const v = { method: e.method, path: e.path };
  if (e.body_text !== undefined) v.body_text = e.body_text;
  else v.body = e.body;
  const want = isObj(match) && isObj(match.headers) ? Object.keys(match.headers).map((k) => k.toLowerCase()) : [];
  if (want.length) v.headers = Object.fromEntries(want.map((k) => [k, e.headers[k]]));
  v.state = e.state;
  return v;
}

function closestWebhook(spec, cands, ctx) {
  let best = null;
  for (const e of cands) {
    const d = matchWebhook(spec.match, e, ctx);
    if (!best || d.length < best.d.length) best = { e, d };
  }
  return best;
}

async function expectWebhook(ctx, spec) {
  const { r, error } = receiverFor(ctx, spec);
  if (error) return { problems: [`expect_webhook: ${error}`] };
  const count = spec.count ?? 1;
  const within = spec.within_ms ?? 10_000;
  const deadline = Date.now() + within;
  let matched = [];
  for (;;) {
    matched = r.pending().filter((e) => matchWebhook(spec.match, e, ctx).length === 0);
    if (matched.length >= count || Date.now() >= deadline) break;
    await sleep(Math.min(100, Math.max(10, deadline - Date.now())));
  }
  if (matched.length < count) {
    const others = r.pending().filter((e) => !matched.includes(e));
    const problems = [`expect_webhook ${r.name} (${r.addr}): wanted ${count} request(s) matching within ${within} ms, got ${matched.length}` +
      (others.length ? `; ${others.length} other request(s) received` : '; no other request received in this case')];
    const best = closestWebhook(spec, others, ctx);
    if (best) {
      problems.push(`closest request (${best.e.method} ${best.e.path}, ${new Date(best.e.time).toISOString()}) differs:`);
      problems.push(...best.d.slice(0, 8).map((x) => `  ${x}`));
    }
    const seen = others.slice(0, 5).map(webhookBrief);
    return { problems, expected: spec.match ?? {}, actual: best ? failureView(best.e, spec.match) : (seen.length ? seen : null) };
  }
  const taken = matched.slice(0, count);
  for (const e of taken) e.consumed = true;
  const problems = [];
  if (spec.gap_ms && taken.length > 1) {
    const { min, max } = spec.gap_ms;
    for (let i = 1; i < taken.length; i++) {
      const gap = taken[i].time - taken[i - 1].time;
      if (min !== undefined && gap < min) problems.push(`expect_webhook ${r.name}: request ${i + 1} came ${gap} ms after request ${i}, expected at least ${min} ms`);
      if (max !== undefined && gap > max) problems.push(`expect_webhook ${r.name}: request ${i + 1} came ${gap} ms after request ${i}, expected at most ${max} ms`);
    }
  }
  if (problems.length) return { problems, expected: { gap_ms: spec.gap_ms }, actual: taken.map((e) => ({ path: e.path, time: new Date(e.time).toISOString() })) };
  const cap = doCapture(ctx, spec.capture, count === 1 ? webhookView(taken[0]) : taken.map(webhookView));
  if (cap) return { problems: [cap] };
  return null;
}

async function expectNoWebhook(ctx, spec) {
  const { r, error } = receiverFor(ctx, spec);
  if (error) return { problems: [`expect_no_webhook: ${error}`] };
  const forMs = spec.for_ms ?? 3000;
  const deadline = Date.now() + forMs;
  let bad = [];
  for (;;) {
    bad = r.pending().filter((e) => matchWebhook(spec.match, e, ctx).length === 0);
    if (bad.length || Date.now() >= deadline) break;
    await sleep(Math.min(100, Math.max(10, deadline - Date.now())));
  }
  if (!bad.length) return null;
  for (const e of bad) e.consumed = true;
  return {
    problems: [`expect_no_webhook ${r.name} (${r.addr}): expected no request matching for ${forMs} ms, got ${bad.length}`],
    expected: spec.match ?? {},
    actual: bad.length === 1 ? failureView(bad[0], spec.match) : bad.slice(0, 5).map(webhookBrief),
  };
}

// ------------------------------------------------------------------ variables, request tokens
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

const TIME_TOKEN = /^\$\$time:([+-]?\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

class TokenError extends Error {}

// request-side tokens: "$$var:NAME" (whole string: the captured value), "$$time:+5s" (ISO-8601 UTC
// timestamp relative to now), and "$${NAME}" inside a longer string (the captured value as text)
function resolveTokens(v, ctx) {
  if (typeof v === 'string') {
    if (v.startsWith('$$var:')) {
      const name = v.slice(6);
      if (!Object.prototype.hasOwnProperty.call(ctx.vars, name)) throw new TokenError(`variable ${name} was never captured`);
      return ctx.vars[name];
    }
    const m = TIME_TOKEN.exec(v);
    if (m) return new Date(Date.now() + Number(m[1]) * UNIT_MS[m[2] || 's']).toISOString();
    if (v.includes('$${')) {
      return v.replace(/\$\$\{([A-Za-z0-9_.-]+)\}/g, (_, name) => {
        if (!Object.prototype.hasOwnProperty.call(ctx.vars, name)) throw new TokenError(`variable ${name} was never captured`);
        const x = ctx.vars[name];
        return typeof x === 'string' ? x : JSON.stringify(x);
      });
    }
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => resolveTokens(x, ctx));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveTokens(x, ctx)]));
  return v;
}

// "$.a.b[0]['x-y']" -> value (undefined when absent)
function jsonPath(root, path) {
  if (typeof path !== 'string' || !path.startsWith('$')) return { error: `bad path ${show(path)} (must start with $)` };
  let cur = root;
  const re = /\.([^.[\]]+)|\[(\d+)\]|\[["']([^"']*)["']\]/y;
  let i = 1;
  while (i < path.length) {
    re.lastIndex = i;
    const m = re.exec(path);
    if (!m) return { error: `bad path ${show(path)} at ${i}` };
    i = re.lastIndex;
    const key = m[1] ?? m[3] ?? Number(m[2]);
    if (cur === null || typeof cur !== 'object' || !(key in cur)) return { missing: true };
    cur = cur[key];
  }
  return { value: cur };
}

function doCapture(ctx, capture, root) {
  if (!isObj(capture)) return null;
  for (const [name, path] of Object.entries(capture)) {
    const r = jsonPath(root, path);
    if (r.error) return `capture ${name}: ${r.error}`;
    if (r.missing) return `capture ${name}: nothing at ${path} in ${show(root)}`;
    ctx.vars[name] = r.value;
  }
  return null;
}

function substitute(v, prev) {
  if (v === '$$previous_response') return prev;
  if (Array.isArray(v)) return v.map((x) => substitute(x, prev));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, prev)]));
  return v;
}

function authHeaders(ctx, step) {
  const auth = step.auth || 'admin';
  const h = { ...(step.headers || {}) };
  if (auth === 'admin' && ctx.opts.adminSecret) h['X-Svc-Admin-Secret'] = ctx.opts.adminSecret;
  if (auth === 'jwt') h.Authorization = `Bearer ${tokenFor(step.jwt, ctx.jwt)}`;
  return h;
}

// runs one step; returns null on success or a failure record
async function runStep(ctx, step, tag) {
  if (step.expect_webhook || step.expect_no_webhook || ('sleep_ms' in step && !step.url)) {
    try {
      if (step.expect_webhook) return await expectWebhook(ctx, step.expect_webhook);
      if (step.expect_no_webhook) return await expectNoWebhook(ctx, step.expect_no_webhook);
      await sleep(Math.max(0, Number(step.sleep_ms) || 0));
      return null;
    } catch (e) {
      return { problems: [`runner error in ${step.expect_webhook ? 'expect_webhook' : step.expect_no_webhook ? 'expect_no_webhook' : 'sleep_ms'}: ${e?.message || e}`] };
    }
  }
  if (!step.poll_ms) return runHttpStep(ctx, step, tag);
  // poll_ms: send the request again (every 500 ms) until it passes or poll_ms has elapsed
  const deadline = Date.now() + Number(step.poll_ms);
  let f;
  for (let attempt = 1; ; attempt++) {
    f = await runHttpStep(ctx, step, tag && (attempt > 1 ? `${tag}~${attempt}` : tag));
    if (!f || Date.now() >= deadline) break;
    await sleep(Math.min(500, Math.max(10, deadline - Date.now())));
  }
  if (f) {
    const note = `still failing after polling for ${step.poll_ms} ms`;
    if (f.problems) f.problems = [`${note}:`, ...f.problems];
    else f.reason = `${note}: ${f.reason}`;
  }
  return f;
}

async function runHttpStep(ctx, step, tag) {
  let body;
  let prevReq;
  let hdrs;
  try {
    body = resolveTokens(step.body, ctx);
    prevReq = step.previous_request === undefined ? undefined : resolveTokens(step.previous_request, ctx);
    hdrs = step.headers === undefined ? undefined : resolveTokens(step.headers, ctx);
  } catch (e) {
    if (e instanceof TokenError) return { reason: `cannot build the request: ${e.message}` };
    throw e;
  }
  if (prevReq !== undefined) {
    const prev = await send(ctx, { url: step.url, headers: authHeaders(ctx, {}), body: prevReq, tag: tag && `${tag}:prep` });
    if (prev.error || prev.status !== 200) return { reason: `preparatory request failed (${prev.status}) ${prev.error || show(prev.body)}` };
    body = substitute(body, prev.body);
  }
  const res = await send(ctx, { url: step.url, method: step.method || 'POST', headers: authHeaders(ctx, { ...step, headers: hdrs }), body, tag });
  const statuses = step.status_in || [step.status ?? 200];
  const problems = [];
  if (res.error) problems.push(res.error);
  if (!statuses.includes(res.status)) problems.push(`status: expected ${statuses.join(' or ')}, got ${res.status}`);
  const check = ('response' in step || step.allowed_responses) && (!step.stale || ctx.opts.includeStale);
  if (check && !res.error) problems.push(...compareResponse(step, res.body, ctx));
  else if (!res.error && res.status === 200) problems.push(...successShape(step.url, res.body, body));
  if (problems.length === 0 && step.capture) {
    const c = doCapture(ctx, step.capture, res.body);
    if (c) problems.push(c);
  }
  if (problems.length === 0) return null;
  return { problems, expected: step.allowed_responses ? { allowed_responses: step.allowed_responses } : step.response, actual: res.body, status: res.status };
}

async function runSteps(ctx, steps, ignoreErrors, tag) {
  for (let i = 0; i < steps.length; i++) {
    const f = await runStep(ctx, steps[i], tag && `${tag}#${i}`);
    if (f && !ignoreErrors) return { index: i, ...f };
  }
  return null;
}

// ------------------------------------------------------------------ corpus
function loadJson(p) {
  return JSON.parse(readFileSync(p, 'utf8'));
}

function findGroups(root) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === 'group.json') out.push(d);
    }
  };
  walk(root);
  return out;
}

function selected(only, groupId, caseName) {
  if (only.length === 0) return true;
  const full = `${groupId}/${caseName}`;
  return only.some((s0) => {
    const s = s0.replace(/\/+$/, '');
    return groupId === s || groupId.startsWith(s) || full === s;
  });
}

function unmetRequirements(reqs, ctx) {
  const missing = [];
  for (const r of reqs || []) {
    const ok = {
      jwt: Boolean(ctx.jwt),
      jwt_audience: Boolean(ctx.jwt && ctx.jwt.aud),
      jwt_no_audience: Boolean(ctx.jwt && !ctx.jwt.aud),
      jwt_issuer: Boolean(ctx.jwt && ctx.jwt.iss),
      jwt_no_issuer: Boolean(ctx.jwt && !ctx.jwt.iss),
      admin_secret: Boolean(ctx.opts.adminSecret),
    }[r];
    if (!(ok ?? ctx.opts.with.has(r))) missing.push(r);
  }
  return missing;
}

// ------------------------------------------------------------------ main
async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) { console.log(HELP); return 0; }
  if (!opts.url) usage('--url is required');
  const base = opts.url.replace(/\/+$/, '');
  const casesDir = opts.cases || join(HERE, 'cases');
  if (!existsSync(casesDir)) usage(`corpus directory not found: ${casesDir}`);
  let jwt;
  try { jwt = makeJwtCtx(opts); } catch (e) { usage(`cannot set up JWT signing: ${e.message}`); }
  const ctx = { opts, base, jwt, netErrors: 0, vars: {}, hooks: {} };

  if (!(await reachable(base))) {
    console.log(`server unreachable at ${base}`);
    console.log('conformance: 0 passed, 0 failed');
    return 2;
  }

  // webhook receivers (Hasura's harness ran them beside the engine; we are that harness)
  const wanted = [['events', opts.eventsPort], ['scheduled_triggers', opts.scheduledPort]].filter(([n]) => opts.with.has(n));
  for (const [name, port] of wanted) {
    const r = new WebhookReceiver(name, opts.webhookHost, port);
    await r.start();
    ctx.hooks[name] = r;
    console.log(r.error ? `warning: ${r.error} (cases that expect ${name} deliveries will fail)` : `${name} webhook receiver listening on ${r.addr}`);
  }
  // a scope is one setup run (per_class: the group; per_test: each case): variables and
  // webhook requests from an earlier scope are not visible to expectations
  const beginScope = () => {
    ctx.vars = {};
    for (const r of Object.values(ctx.hooks)) r.mark = r.seq;
  };

  const failures = [];
  const report = { url: base, started: new Date().toISOString(), groups: [] };
  let diffsShown = 0;

  for (const gdir of findGroups(casesDir)) {
    const group = loadJson(join(gdir, 'group.json'));
    const gid = group.group || relative(casesDir, gdir);
    const names = (group.cases || []).filter((c) => selected(opts.only, gid, c));
    if (names.length === 0) continue;
    const gres = { group: gid, passed: 0, failed: 0, skipped: 0, cases: [] };
    report.groups.push(gres);
    const gMissing = unmetRequirements(group.requires, ctx);
    const gSkip = gMissing.length ? `requires ${gMissing.join(', ')}` : (group.slow && !opts.includeSlow ? 'slow (run with --include-slow)' : null);
    if (gSkip) {
      gres.skipped = names.length;
      totals.skipped += names.length;
      gres.cases = names.map((n) => ({ case: n, result: 'skipped', reason: gSkip }));
      console.log(`~ ${gid}: ${names.length} skipped (${gSkip})`);
      continue;
    }
    // nothing to run (every selected case is skipped): do not touch the server at all
    const runnable = names.some((n) => {
      try {
        const d = loadJson(join(gdir, `${n}.json`));
        return !(d.skip || unmetRequirements(d.requires, ctx).length || (d.slow && !opts.includeSlow));
      } catch { return true; }
    });
    if (!runnable) {
      for (const n of names) {
        let reason = 'skipped';
        try {
          const d = loadJson(join(gdir, `${n}.json`));
          const m = unmetRequirements(d.requires, ctx);
          reason = d.skip || (m.length ? `requires ${m.join(', ')}` : 'slow (run with --include-slow)');
        } catch { /* counted as skipped */ }
        gres.skipped++;
        totals.skipped++;
        gres.cases.push({ case: n, result: 'skipped', reason });
      }
      console.log(`~ ${gid}: ${names.length} skipped (every case is gated, marked skip or slow)`);
      continue;
    }
    const setup = loadJson(join(gdir, 'setup.json')).steps || [];
    const teardownDoc = loadJson(join(gdir, 'teardown.json'));
    const teardown = teardownDoc.steps || [];
    const warnings = [];
    const doSetup = async () => {
      const f = await runSteps(ctx, setup, false, `${gid}/:setup`);
      if (f) warnings.push(`setup step ${f.index} failed: ${(f.problems || [f.reason]).join('; ')} ${show(f.actual)}`);
      return f;
    };
    const doTeardown = async () => {
      const f = await runSteps(ctx, teardown, Boolean(teardownDoc.ignore_errors), `${gid}/:teardown`);
      if (f) warnings.push(`teardown step ${f.index} failed: ${(f.problems || [f.reason]).join('; ')} ${show(f.actual)}`);
    };

    const record = (name, caseDoc, failure) => {
      let result;
      if (failure === 'skip') result = 'skipped';
      else result = failure ? 'failed' : 'passed';
      gres[result === 'skipped' ? 'skipped' : result]++;
      totals[result === 'skipped' ? 'skipped' : result]++;
      const entry = { case: name, result };
      if (failure && failure !== 'skip') {
        entry.failure = failure;
        failures.push({ gid, name, failure });
        if (diffsShown < opts.maxDiffs) {
          diffsShown++;
          console.log(`  ✗ ${gid}/${name}${failure.index !== undefined ? ` (step ${failure.index})` : ''}`);
          for (const p of failure.problems || [failure.reason]) console.log(`      ${p}`);
          if (failure.expected !== undefined) console.log(`      expected: ${show(failure.expected)}`);
          if ('actual' in failure) console.log(`      actual:   ${show(failure.actual)}`);
          if (caseDoc?.version_note) console.log(`      note: ${caseDoc.version_note}`);
        }
      } else if (opts.verbose) {
        console.log(`  ${result === 'passed' ? '✓' : '~'} ${gid}/${name}`);
      }
      if (failure === 'skip' && caseDoc?._skipReason) entry.reason = caseDoc._skipReason;
      gres.cases.push(entry);
    };

    const runCase = async (name, setupFailure) => {
      let caseDoc;
      try {
        caseDoc = loadJson(join(gdir, `${name}.json`));
      } catch (e) {
        record(name, null, { reason: `cannot load case: ${e.message}` });
        return;
      }
      const missing = unmetRequirements(caseDoc.requires, ctx);
      if (caseDoc.skip || missing.length || (caseDoc.slow && !opts.includeSlow)) {
        caseDoc._skipReason = caseDoc.skip || (missing.length ? `requires ${missing.join(', ')}` : 'slow (run with --include-slow)');
        record(name, caseDoc, 'skip');
        return;
      }
      if (setupFailure) {
        record(name, caseDoc, { reason: `group setup failed: ${(setupFailure.problems || [setupFailure.reason]).join('; ')}`, actual: setupFailure.actual });
        return;
      }
      const f = await runSteps(ctx, caseDoc.steps || [], false, `${gid}/${name}`);
      record(name, caseDoc, f);
    };

    if (opts.preclean && teardown.length) await runSteps(ctx, teardown, true, `${gid}/:preclean`);
    if (group.mode === 'per_test') {
      for (const name of names) {
        beginScope();
        const sf = await doSetup();
        await runCase(name, sf);
        await doTeardown();
      }
    } else {
      beginScope();
      const sf = await doSetup();
      for (const name of names) await runCase(name, sf);
      await doTeardown();
    }
    const uniq = [...new Set(warnings)];
    gres.warnings = uniq;
    const mark = gres.failed ? 'FAIL' : 'ok  ';
    console.log(`${mark} ${gid}: ${gres.passed} passed, ${gres.failed} failed${gres.skipped ? `, ${gres.skipped} skipped` : ''}`);
    for (const w of uniq.slice(0, 3)) console.log(`     warning: ${w.length > 300 ? w.slice(0, 300) + '…' : w}`);
  }

  report.finished = new Date().toISOString();
  report.totals = totals;
  if (Object.keys(ctx.hooks).length) {
    report.webhooks = {};
    for (const [name, r] of Object.entries(ctx.hooks)) {
      report.webhooks[name] = { listen: r.addr, error: r.error, requests: r.log.slice(-500).map((e) => ({ ...webhookView(e), seq: e.seq, consumed: e.consumed })) };
      r.close();
    }
  }
  if (opts.json) {
    try { writeFileSync(opts.json, JSON.stringify(report, null, 2)); } catch (e) { console.log(`could not write ${opts.json}: ${e.message}`); }
  }
  if (totals.skipped) console.log(`skipped: ${totals.skipped} (capability-gated or marked skip; see --help)`);
  console.log(`conformance: ${totals.passed} passed, ${totals.failed} failed`);
  return ratchet(opts, report);
}

// The baseline only grows: ids that passed before must pass now.
function ratchet(opts, report) {
  const ran = new Map();
  for (const g of report.groups) for (const c of g.cases) ran.set(`${g.group}/${c.case}`, c.result);
  const passedNow = [...ran].filter(([, r]) => r === 'passed').map(([id]) => id);
  let code = 0;
  if (opts.baseline) {
    let before = [];
    try { before = JSON.parse(readFileSync(opts.baseline, 'utf8')); } catch (e) { usage(`cannot read baseline ${opts.baseline}: ${e.message}`); }
    if (!Array.isArray(before)) usage(`baseline ${opts.baseline} is not a JSON list`);
    const considered = before.filter((id) => ran.has(id));
    const regressions = considered.filter((id) => ran.get(id) !== 'passed');
    const gone = before.filter((id) => !ran.has(id));
    for (const id of regressions) console.log(`REGRESSION: ${id} passed in the baseline and ${ran.get(id)} now`);
    if (gone.length && opts.only.length === 0) console.log(`note: ${gone.length} baseline id(s) not found in the corpus: ${gone.slice(0, 5).join(', ')}${gone.length > 5 ? ', …' : ''}`);
    const newly = passedNow.filter((id) => !before.includes(id));
    if (newly.length) console.log(`${newly.length} case(s) pass that are not in the baseline yet: run with --update-baseline to record them`);
    console.log(`baseline: ${considered.length - regressions.length} passed, ${regressions.length} failed`);
    if (regressions.length) code = 1;
  }
  if (opts.updateBaseline) {
    let keep = [];
    try { keep = JSON.parse(readFileSync(opts.updateBaseline, 'utf8')); } catch { keep = []; }
    if (!Array.isArray(keep)) keep = [];
    const ids = [...new Set([...keep.filter((id) => !ran.has(id)), ...passedNow])].sort();
    writeFileSync(opts.updateBaseline, JSON.stringify(ids, null, 2) + '\n');
    console.log(`wrote ${ids.length} id(s) to ${opts.updateBaseline}`);
  }
  return code;
}

main().then((code) => process.exit(code)).catch((e) => {
  if (e instanceof Unreachable) {
    console.log(e.message);
    console.log(`conformance: ${totals.passed} passed, ${totals.failed} failed`);
    process.exit(2);
  }
  console.error(e?.stack || String(e));
  process.exit(1);
});
