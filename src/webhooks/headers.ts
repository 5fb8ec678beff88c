/**
 * Header configurations of webhooks (`[{name, value}]` or `[{name, value_from_env}]`) and their
 * resolution against the environment. A value read from the environment is marked `fromEnv` so the
 * invocation log and the structured log print it redacted: secrets kept in env vars stay out of logs
 * and out of `export_metadata` (which prints the configuration, never the value).
 */
import { ApiError } from '../core/index.js';

export type HeaderConf = { name: string; value: string } | { name: string; value_from_env: string };

export interface ResolvedHeader {
  name: string;
  value: string;
  fromEnv: boolean;
}

/** Engine settings are not for webhooks: refused with Hasura's parse-failed at `path`. */
export function assertEnvNameAllowed(name: string, path: string): void {
  if (/^SVC_GRAPHQL_/i.test(name)) {
    throw new ApiError('parse-failed', `env variables starting with "SVC_GRAPHQL_" are not allowed in value_from_env: ${name}`, { path });
  }
}

/**
 * The header values for `confs`; `missing` lists env variables that are not set (the caller reports
 * the object as inconsistent). `SVC_GRAPHQL_*` names are never read, even when stored metadata has one.
 */
export function resolveHeaders(confs: readonly HeaderConf[], env: NodeJS.ProcessEnv): { headers: ResolvedHeader[]; missing: string[] } {
  const headers: ResolvedHeader[] = [];
  const missing: string[] = [];
  for (const h of confs) {
    if ('value' in h) headers.push({ name: h.name, value: h.value, fromEnv: false });
    else {
      const v = /^SVC_GRAPHQL_/i.test(h.value_from_env) ? undefined : env[h.value_from_env];
      if (v === undefined) missing.push(h.value_from_env);
      else headers.push({ name: h.name, value: v, fromEnv: true });
    }
  }
  return { headers, missing };
}

/** Headers as they may be logged: values from the environment replaced by a marker. */
export function redactedHeaders(headers: readonly ResolvedHeader[]): Array<{ name: string; value: string }> {
  return headers.map((h) => ({ name: h.name, value: h.fromEnv ? '<from env>' : h.value }));
}
