/**
 * Flags + SVC_GRAPHQL_* environment → one frozen ServerConfig. A flag wins over its variable,
 * which wins over the default in options.ts. Flags take `--flag value` or `--flag=value`;
 * boolean flags may stand alone (`--dev-mode`). Anything invalid throws a ConfigError naming
 * the flag (or the variable, when the bad value came from the environment).
 *
 *   loadConfig(['--server-port', '9000'], { SVC_GRAPHQL_SERVER_PORT: '8000' }).serverPort === 9000
 */
import * as p from './parsers.js';
import { ConfigError } from './configError.js';
import { OPTIONS, OPTIONS_BY_FLAG, type OptionSpec } from './options.js';
import type { ServerConfig } from './serverConfig.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** Splits argv (flags only) into flag → raw value; unknown flags and stray words are errors. */
export function parseFlags(argv: readonly string[]): Map<OptionSpec, string> {
  const out = new Map<OptionSpec, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument ${JSON.stringify(arg)} (see --help)`);
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const spec = OPTIONS_BY_FLAG.get(flag);
    if (!spec) throw new ConfigError(`${flag}: unknown flag (see --help)`);
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (spec.boolean) {
      const next = argv[i + 1];
      value = next !== undefined && !next.startsWith('--') ? (i++, next) : 'true';
    } else {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('--') && OPTIONS_BY_FLAG.has(next.split('=')[0]!))) {
        throw new ConfigError(`${flag}: expected a value`);
      }
      value = next;
      i++;
    }
    out.set(spec, value);
  }
  return out;
}

/** Builds the engine configuration from command-line flags and the environment. */
export function loadConfig(argv: readonly string[] = [], env: Env = {}): ServerConfig {
  const flags = parseFlags(argv);
  const values: Record<string, unknown> = {};
  for (const spec of OPTIONS) {
    const fromFlag = flags.get(spec);
    const fromEnv = env[spec.env];
    if (fromFlag !== undefined) values[spec.key] = spec.parse(fromFlag, spec.flag);
    else if (fromEnv !== undefined && fromEnv !== '') values[spec.key] = spec.parse(fromEnv, `${spec.env} (${spec.flag})`);
    else if (spec.default !== undefined) values[spec.key] = spec.parse(spec.default, spec.flag);
  }
  // The standard OpenTelemetry variable turns tracing on too (ours wins when both are set).
  const otelEnv = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (values.otelExporterOtlpEndpoint === undefined && otelEnv !== undefined && otelEnv !== '') {
    values.otelExporterOtlpEndpoint = p.httpUrl(otelEnv, 'OTEL_EXPORTER_OTLP_ENDPOINT (--otel-exporter-otlp-endpoint)');
  }
  const { liveQueriesBatchSize, liveQueriesRefetchIntervalMs, liveQueriesChangePollIntervalMs, ...rest } = values;
  const config = {
    ...rest,
    liveQueries: Object.freeze({
      batchSize: liveQueriesBatchSize as number,
      refetchIntervalMs: liveQueriesRefetchIntervalMs as number,
      changePollIntervalMs: liveQueriesChangePollIntervalMs as number,
    }),
  } as unknown as ServerConfig;
  const jwtFlag = config.jwtSecrets !== undefined ? '--jwt-secrets' : '--jwt-secret';
  const hasJwt = config.jwtSecret !== undefined || config.jwtSecrets !== undefined;
  if (hasJwt && config.adminSecret === undefined) {
    throw new ConfigError(`${jwtFlag}: requires an admin secret (--admin-secret / SVC_GRAPHQL_ADMIN_SECRET)`);
  }
  if (config.authHook !== undefined && config.adminSecret === undefined) {
    throw new ConfigError('--auth-hook: requires an admin secret (--admin-secret / SVC_GRAPHQL_ADMIN_SECRET)');
  }
  if (hasJwt && config.authHook !== undefined) {
    throw new ConfigError(`${jwtFlag}: cannot be used together with --auth-hook`);
  }
  return Object.freeze(config);
}

/** The configuration with every default (and nothing from the environment). */
export const defaultConfig = (): ServerConfig => loadConfig([], {});
