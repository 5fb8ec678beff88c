/**
 * The headers a WebSocket connection is authenticated with: the upgrade request's, and those of
 * `connection_init`'s `payload.headers`. `connection_init` never adds rights to the upgrade request's.
 *
 * With an admin secret and `--ws-init-overrides-headers` off (the default then):
 *  - a header the upgrade request carries is never replaced by the payload;
 *  - when the upgrade request carries a credential (the admin secret; `Authorization`; with the auth
 *    webhook also `Cookie`), it alone decides who the connection is: the payload's headers that bear
 *    on authorisation are ignored — credentials, `Cookie`, and every `x-svc-*` header (the role, the
 *    backend-only flag, session variables) except the read-your-writes ones; with the auth webhook,
 *    which sees every header, all of the payload's headers are ignored;
 *  - when it carries none (a browser cannot set headers on the upgrade: its token is in the
 *    payload), the payload's headers are added and authenticate the connection as they would an
 *    HTTP request: its own credentials prove themselves.
 * Without an admin secret (every request is admin anyway), or with the flag on, the payload wins,
 * as in Hasura. With `--hasura-compat` (`hasuraCompat`) a name counts in either spelling: `X-Hasura-Role`
 * in the payload is the upgrade request's `X-Svc-Role`, and `X-Hasura-*` headers bear on authorisation
 * as their `x-svc-*` twins do.
 */
import type { ServerConfig } from '../config/index.js';
import { svcSessionName } from '../core/index.js';
import { COMMIT_LSN_HEADER, READ_PRIMARY_HEADER } from '../execution/index.js';

/** Headers that carry a credential, per auth mode. */
const SECRET_HEADERS = ['x-svc-admin-secret', 'x-svc-access-key'];
const SESSION_PREFIX = 'x-svc-';
/** `x-svc-*` headers that choose where a read goes, not who reads. */
const NOT_AUTHORISATION = new Set([COMMIT_LSN_HEADER, READ_PRIMARY_HEADER]);

export interface InitHeaders {
  /** What the connection is authenticated with. */
  headers: Record<string, string>;
  /** Payload headers that were not used (lower-case names), for the log. */
  ignored: string[];
}

type InitConfig = Pick<ServerConfig, 'adminSecret' | 'wsInitOverridesHeaders' | 'authHook' | 'jwtSecret' | 'jwtSecrets'>;

export function connectionInitHeaders(upgrade: Readonly<Record<string, string>>, payload: unknown, config: InitConfig, hasuraCompat = false): InitHeaders {
  const headers: Record<string, string> = { ...upgrade };
  /** The name a header counts as: itself, or under --hasura-compat its x-svc-* spelling. */
  const canon = hasuraCompat ? svcSessionName : (k: string) => k;
  const upgradeNames = new Map(Object.entries(upgrade).map(([k, v]) => [canon(k), v]));
  const ignored: string[] = [];
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return { headers, ignored };
  const hasSecret = config.adminSecret !== undefined && config.adminSecret !== '';
  const override = config.wsInitOverridesHeaders ?? !hasSecret;
  const webhook = config.authHook !== undefined && config.authHook !== '';
  const credentials = [...SECRET_HEADERS, 'authorization', ...(webhook ? ['cookie'] : [])];
  const authenticatedUpgrade = hasSecret && credentials.some((h) => upgradeNames.has(h));
  for (const [k, v] of Object.entries(payload as Record<string, unknown>)) {
    if (typeof v !== 'string') continue;
    const key = k.toLowerCase();
    if (override) {
      headers[key] = v;
    } else if (upgradeNames.has(canon(key))) {
      if (upgradeNames.get(canon(key)) !== v) ignored.push(key);
    } else if (authenticatedUpgrade && (webhook || bearsOnAuthorisation(canon(key), credentials))) {
      ignored.push(key);
    } else {
      headers[key] = v;
    }
  }
  return { headers, ignored };
}

function bearsOnAuthorisation(key: string, credentials: readonly string[]): boolean {
  if (credentials.includes(key) || key === 'cookie') return true;
  return key.startsWith(SESSION_PREFIX) && !NOT_AUTHORISATION.has(key);
}
