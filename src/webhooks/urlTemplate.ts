/**
 * Webhook URLs as metadata writes them: a literal URL, a URL with `{{ENV_VAR}}` parts (Hasura's
 * templated handlers, e.g. `{{EVENT_WEBHOOK_HANDLER}}/path`), Hasura's `UrlConf` object form
 * `{"from_env": "VAR"}` (wherever a URL is written), or `webhook_from_env`. Resolved when the schema
 * cache is built; a variable that is not set makes the object inconsistent.
 */
const TEMPLATE = /\{\{([^{}]+)\}\}/g;

/** The URL with every `{{VAR}}` replaced; `missing` names the unset variables. */
export function resolveUrlTemplate(template: string, env: NodeJS.ProcessEnv): { url: string; missing: string[] } {
  const missing: string[] = [];
  const url = template.replace(TEMPLATE, (_, raw: string) => {
    const name = raw.trim();
    const v = /^SVC_GRAPHQL_/i.test(name) ? undefined : env[name];
    if (v === undefined) {
      missing.push(name);
      return '';
    }
    return v;
  });
  return { url, missing };
}

/** Hasura's `UrlConf`: a URL (maybe with `{{VAR}}` parts) or `{from_env: VAR}`. */
export type UrlConf = string | { from_env: string };

/** What a URL field may hold: a string, or an object with a string `from_env`. */
export const isUrlConf = (v: unknown): v is UrlConf =>
  typeof v === 'string' || (typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { from_env?: unknown }).from_env === 'string');

/** A `UrlConf` → URL; `missing` names the unset variables (SVC_GRAPHQL_* are never read). */
export function resolveUrlConf(conf: UrlConf, env: NodeJS.ProcessEnv): { url: string; missing: string[] } {
  if (typeof conf === 'string') return resolveUrlTemplate(conf, env);
  const name = conf.from_env;
  const v = /^SVC_GRAPHQL_/i.test(name) ? undefined : env[name];
  return v === undefined || v === '' ? { url: '', missing: [name] } : { url: v, missing: [] };
}

/** `webhook` (maybe templated or `webhook_from_env` → URL, or the reason it cannot be resolved. */
export function resolveWebhook(conf: { webhook?: UrlConf | null; webhook_from_env?: string | null }, env: NodeJS.ProcessEnv): { url: string } | { error: string } {
  if (conf.webhook_from_env) {
    const name = conf.webhook_from_env;
    const v = /^SVC_GRAPHQL_/i.test(name) ? undefined : env[name];
    return v === undefined ? { error: `environment variable '${name}' not set` } : { url: v };
  }
  const r = resolveUrlConf(conf.webhook ?? '', env);
  if (r.missing.length > 0) return { error: `environment variable '${r.missing[0]}' not set` };
  return { url: r.url };
}
