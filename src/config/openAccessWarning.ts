/**
 * An open engine says so: with no admin secret every request is admin (JWT and the auth webhook
 * need one, so there is no other authentication either). On a loopback address only this machine
 * can reach it; on any other address (the default, 0.0.0.0, is every interface) anyone who can
 * reach the port can read, write and drop everything. The engine logs this once at start and the
 * config API (`/v1alpha1/config` `warnings`) passes it to the console, which shows it as a banner.
 */
import type { ServerConfig } from './serverConfig.js';

export interface ConfigWarning {
  code: 'open-access';
  message: string;
}

/** Whether `host` (as given to --server-host) reaches this machine only. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || /^::ffff:127(\.\d{1,3}){3}$/.test(h);
}

/** The warning for an engine without an admin secret listening on a non-loopback address; undefined otherwise. */
export function openAccessWarning(config: Pick<ServerConfig, 'adminSecret' | 'serverHost'>): ConfigWarning | undefined {
  if (config.adminSecret !== undefined && config.adminSecret !== '') return undefined;
  if (isLoopbackHost(config.serverHost)) return undefined;
  const where = config.serverHost === '0.0.0.0' || config.serverHost === '::' ? `${config.serverHost} (every interface)` : config.serverHost;
  return {
    code: 'open-access',
    message: `no admin secret is set and the engine listens on ${where}: every request is admin, anyone who reaches the port can read, change and drop everything. Set --admin-secret (SVC_GRAPHQL_ADMIN_SECRET), or listen on 127.0.0.1 (--server-host)`,
  };
}
