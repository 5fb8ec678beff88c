/**
 * `x-svc-use-backend-only-permissions` (Hasura's `x-hasura-use-backend-only-permissions`): on a
 * request that carries the admin secret (or on an engine without one), `true` asks for the role's
 * schema WITH its `backend_only` insert / update / delete permissions; without the header, or from
 * any other request, those mutations are not in the role's schema. The value is read as Hasura
 * reads it (true / t / yes / y, false / f / no / n, any case); anything else is 400 bad-request.
 */
import { ApiError, type Session } from '../core/index.js';

export const BACKEND_ONLY_HEADER = 'x-svc-use-backend-only-permissions';

const TRUE_VALUES = ['true', 't', 'yes', 'y'];
const FALSE_VALUES = ['false', 'f', 'no', 'n'];

/** `session`, marked for backend-only permissions when its (trusted) request asks for them. */
export function withBackendOnly(session: Session): Session {
  const v = session.vars[BACKEND_ONLY_HEADER];
  if (v === undefined) return session;
  const t = v.toLowerCase();
  if (TRUE_VALUES.includes(t)) return { ...session, backendOnly: true };
  if (FALSE_VALUES.includes(t)) return session;
  throw new ApiError('bad-request', `${BACKEND_ONLY_HEADER}:  Not a valid boolean text. True values are ${JSON.stringify(TRUE_VALUES)} and  False values are ${JSON.stringify(FALSE_VALUES)}. All values are case insensitive`);
}
