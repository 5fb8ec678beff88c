export type { ServerConfig, EnabledApi, JwtSecretConfig } from './serverConfig.js';
export { ConfigError } from './configError.js';
export { loadConfig, defaultConfig, parseFlags } from './loadConfig.js';
export type { Env } from './loadConfig.js';
export { OPTIONS, HASURA_ENV_NOT_READ, hasuraEnvNames } from './options.js';
export type { OptionSpec } from './options.js';
export { helpText } from './help.js';
export { openAccessWarning, isLoopbackHost } from './openAccessWarning.js';
export type { ConfigWarning } from './openAccessWarning.js';
