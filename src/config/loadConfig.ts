/**
 * Flags + SVC_GRAPHQL_* environment → one frozen ServerConfig. A flag wins over its variable,
 * which wins over the default in options.ts. Flags take `--flag value` or `--flag=value`;
 * boolean flags may stand alone (`--dev-mode`). Anything invalid throws a ConfigError naming
 * the flag (or the variable, when the bad value came from the environment).
 *
 *   loadConfig(['--server-port', '9000'], { SVC_GRAPHQL_SERVER_PORT: '8000' }).serverPort === 9000
 *
 * With `--hasura-compat` (flag, or `SVC_GRAPHQL_HASURA_COMPAT=true`: only the engine's own names turn it
 * on) an option whose flag and variable are unset reads Hasura's variable (`HASURA_GRAPHQL_SERVER_PORT`,
 * see `hasuraEnvNames`); what was read, and the Hasura variables set but not read, are in `hasuraEnv`.
 */
import * as p from './parsers.js';
import { ConfigError } from './configError.js';
import { HASURA_ENV_NOT_READ, HASURA_ENV_PREFIX, hasuraEnvNames, OPTIONS, OPTIONS_BY_FLAG, type OptionSpec } from './options.js';
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
  const readValue = (spec: OptionSpec): void => {
    const fromFlag = flags.get(spec);
    const fromEnv = env[spec.env];
    if (fromFlag !== undefined) values[spec.key] = spec.parse(fromFlag, spec.flag);
    else if (isSet(fromEnv)) values[spec.key] = spec.parse(fromEnv, `${spec.env} (${spec.flag})`);
    else if (spec.default !== undefined) values[spec.key] = spec.parse(spec.default, spec.flag);
  };
  readValue(COMPAT_SPEC);
  const readHasura = values.hasuraCompat === 'true';
  const hasuraRead: string[] = [];
  const hasuraNotRead: string[] = [];
  for (const spec of OPTIONS) {
    if (spec === COMPAT_SPEC) continue;
    const hasuraName = flags.has(spec) || isSet(env[spec.env]) ? undefined : hasuraEnvNames(spec).find((n) => isSet(env[n]));
    if (hasuraName === undefined) readValue(spec);
    else if (readHasura) {
      values[spec.key] = (spec.hasuraParse ?? spec.parse)(env[hasuraName]!, `${hasuraName} (${spec.flag})`);
      hasuraRead.push(hasuraName);
    } else {
      readValue(spec);
      hasuraNotRead.push(hasuraName);
    }
  }
  for (const name of Object.keys(env)) {
    if (name.startsWith(HASURA_ENV_PREFIX) && isSet(env[name]) && !hasuraRead.includes(name) && !hasuraNotRead.includes(name) && (!readHasura || !KNOWN_HASURA_NAMES.has(name))) hasuraNotRead.push(name);
  }
  checkHasuraEnv(values, env, values.hasuraCompat as string);
  if (hasuraRead.length > 0 || hasuraNotRead.length > 0) values.hasuraEnv = Object.freeze({ read: Object.freeze(hasuraRead), notRead: Object.freeze(hasuraNotRead.sort()) });
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

const isSet = (v: string | undefined): v is string => v !== undefined && v !== '';

const COMPAT_SPEC = OPTIONS.find((o) => o.key === 'hasuraCompat')!;
/** Hasura variables some option reads under --hasura-compat (one set but shadowed by the engine's own is not "not read"). */
const KNOWN_HASURA_NAMES: ReadonlySet<string> = new Set(OPTIONS.flatMap((o) => hasuraEnvNames(o)));

/**
 * Hasura variables that would leave the engine other than the operator meant: an admin secret that is
 * not read would start an engine open to every caller (refused unless --hasura-compat is given either
 * way); under --hasura-compat, Hasura's separate metadata database alone, which the engine cannot use.
 */
function checkHasuraEnv(values: Record<string, unknown>, env: Env, compat: string): void {
  if (compat === 'auto' && values.adminSecret === undefined) {
    const secret = ['HASURA_GRAPHQL_ADMIN_SECRET', 'HASURA_GRAPHQL_ACCESS_KEY'].find((n) => isSet(env[n]));
    if (secret !== undefined) {
      throw new ConfigError(`${secret} is set but not read, and without an admin secret every request would be admin: start with --hasura-compat (SVC_GRAPHQL_HASURA_COMPAT=true) to read Hasura's variables, set SVC_GRAPHQL_ADMIN_SECRET, or start with --hasura-compat false to ignore them`);
    }
  }
  const metadataUrl = 'HASURA_GRAPHQL_METADATA_DATABASE_URL';
  if (compat === 'true' && values.databaseUrl === undefined && isSet(env[metadataUrl])) {
    throw new ConfigError(`${metadataUrl} is set but not read: ${HASURA_ENV_NOT_READ.get(metadataUrl)}; set HASURA_GRAPHQL_DATABASE_URL (or SVC_GRAPHQL_DATABASE_URL) to the database of your default source (often the same URL)`);
  }
}

/** The configuration with every default (and nothing from the environment). */
export const defaultConfig = (): ServerConfig => loadConfig([], {});
