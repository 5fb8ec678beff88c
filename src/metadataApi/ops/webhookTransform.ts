/**
 * `test_webhook_transform` (Hasura v2): applies a request transform to a sample request without calling
 * anything and answers the request the engine would send: `{method, webhook_url, body, headers}` (headers as
 * `[name, value]` pairs). Args: `webhook_url` (a URL, `{{ENV}}` templates resolved from `env` then the process
 * environment, or `{from_env}`), `body`, `env`, `session_variables`, `request_transform`. A template that fails
 * to evaluate is `validation-failed` "Request Transformation Failed" with the Kriti errors and positions.
 */
import { ApiError, jsonTypeName } from '../../core/index.js';
import { applyRequestTransform, decodeRequestTransform, type RequestTransform } from '../../transforms/index.js';
import { resolveUrlConf, type UrlConf } from '../../webhooks/index.js';
import { op } from '../types.js';

interface TestWebhookTransformArgs {
  webhook_url: UrlConf;
  body: unknown;
  env: Record<string, string>;
  session_variables: Record<string, string> | null;
  request_transform: RequestTransform;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function stringMap(v: unknown, path: string): Record<string, string> {
  if (!isObj(v)) throw new ApiError('parse-failed', `expected Object, encountered ${jsonTypeName(v)}`, { path });
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') throw new ApiError('parse-failed', `expected String, encountered ${jsonTypeName(x)}`, { path: `${path}.${k}` });
  }
  return v as Record<string, string>;
}

export const test_webhook_transform = op({
  adminOnly: true,
  mutates: false,
  decode(args: unknown, path: string): TestWebhookTransformArgs {
    if (!isObj(args)) throw new ApiError('parse-failed', `expected Object, encountered ${jsonTypeName(args)}`, { path });
    const url = args.webhook_url;
    let webhook_url: UrlConf;
    if (typeof url === 'string') webhook_url = url;
    else if (isObj(url) && typeof url.from_env === 'string') webhook_url = { from_env: url.from_env };
    else throw new ApiError('parse-failed', url === undefined ? 'key "webhook_url" not found' : 'expected a URL or {"from_env": …} for webhook_url', { path: url === undefined ? path : `${path}.webhook_url` });
    if (args.request_transform === undefined || args.request_transform === null) throw new ApiError('parse-failed', 'key "request_transform" not found', { path });
    return {
      webhook_url,
      body: args.body ?? null,
      env: args.env === undefined || args.env === null ? {} : stringMap(args.env, `${path}.env`),
      session_variables: args.session_variables === undefined || args.session_variables === null ? null : stringMap(args.session_variables, `${path}.session_variables`),
      request_transform: decodeRequestTransform(args.request_transform, `${path}.request_transform`),
    };
  },
  async run(_ctx, args) {
    const { url, missing } = resolveUrlConf(args.webhook_url, { ...process.env, ...args.env });
    if (missing.length > 0) throw new ApiError('not-found', `environment variable '${missing[0]}' not set`, { path: '$.args.webhook_url' });
    const out = applyRequestTransform(
      args.request_transform,
      { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: args.body, bodyKind: 'json' },
      { sessionVariables: args.session_variables },
    );
    return {
      method: out.method,
      webhook_url: out.url,
      body: out.bodyKind === 'none' ? null : out.body,
      headers: Object.entries(out.headers),
    };
  },
});
