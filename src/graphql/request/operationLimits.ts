/**
 * The bounds on what one GraphQL document may cost, checked on the figures of
 * `measureOperation` before the selection set is walked:
 *
 * - `HARD_BOUNDS` protect the engine and apply to every role, admin included: parse tokens
 *   (graphql-js `maxTokens`), selections visited once fragments are expanded, field depth, and
 *   introspection list nesting. Each keeps validation + planning + SQL building of one document
 *   well under ~100 ms of event-loop time (measured in docs/HARDENING.md).
 * - User limits (Hasura v2's `api_limits`: `depth_limit`, `node_limit`, `batch_limit`), resolved
 *   per role by `limitsForRole`: `per_role[role]`, else `global` from metadata, else the server
 *   flag (`--query-depth-limit`...). Admin is limited only by an explicit `per_role.admin` entry.
 *   `disabled: true` switches off what metadata says; the flags still apply. So does
 *   `ignoreMetadataLimits` (Hasura's open-source behaviour, under --hasura-compat). Hasura's
 *   `time_limit` and `rate_limit` are stored (metadata/) and never applied.
 * Every refusal is `validation-failed` at `$`, naming the limit (and the role for user limits).
 */
import { errors } from '../../core/index.js';
import type { ApiLimit, ApiLimits } from '../../metadata/index.js';
import type { DocumentCost } from './documentCost.js';
import { showName, vf } from './messages.js';

export const HARD_BOUNDS = Object.freeze({
  /** Lexical tokens in the query text (graphql-js `parse` stops counting past this). */
  tokens: 20_000,
  /**
   * Work units once fragments are expanded (documentCost.ts: 1 per leaf field, spread or inline
   * fragment, 20 per field with a sub-selection): at most 8 000 leaves or 400 subqueries
   * (~50-100 ms of planning on a loaded 2-core machine, docs/HARDENING.md).
   */
  work: 8_000,
  /** Field nesting (a root field has depth 1). */
  depth: 128,
  /** `fields` / `inputFields` / `interfaces` / `possibleTypes` nested under `__schema` / `__type`. */
  introspectionNesting: 2,
});

/** The user limits that apply to one role (undefined: no limit). */
export interface RoleLimits {
  role: string;
  depth?: number;
  nodes?: number;
  batch?: number;
}

/** Server-wide defaults from the flags / env (apply to non-admin roles). */
export interface LimitDefaults {
  queryDepthLimit?: number;
  queryNodeLimit?: number;
  queryBatchLimit?: number;
  /**
   * The metadata's `api_limits` are stored only (Hasura's open-source edition applies none): with
   * --hasura-compat or an adopted Hasura catalog, unless --apply-api-limits. The flags above still apply.
   */
  ignoreMetadataLimits?: boolean;
}

const ADMIN = 'admin';

function pick(limit: ApiLimit | undefined, role: string, fallback: number | undefined): number | undefined {
  const own = limit?.per_role && Object.prototype.hasOwnProperty.call(limit.per_role, role) ? limit.per_role[role] : undefined;
  if (own !== undefined) return own;
  if (role === ADMIN) return undefined;
  return limit?.global ?? fallback;
}

/** The user limits of `role` from metadata `api_limits` and the server's defaults. */
export function limitsForRole(apiLimits: ApiLimits | undefined, defaults: LimitDefaults, role: string): RoleLimits {
  const md = apiLimits && !apiLimits.disabled && defaults.ignoreMetadataLimits !== true ? apiLimits : undefined;
  const admin = role === ADMIN;
  return {
    role,
    depth: pick(md?.depth_limit, role, admin ? undefined : defaults.queryDepthLimit),
    nodes: pick(md?.node_limit, role, admin ? undefined : defaults.queryNodeLimit),
    batch: pick(md?.batch_limit, role, admin ? undefined : defaults.queryBatchLimit),
  };
}

/** Refuses a document over a hard bound or over the role's limits (`validation-failed` at `$`). */
export function checkOperationCost(cost: DocumentCost, limits?: RoleLimits): void {
  if (cost.depth > HARD_BOUNDS.depth) throw errors.nestedTooDeeply();
  if (cost.work > HARD_BOUNDS.work) throw tooLarge();
  if (cost.introspectionNesting > HARD_BOUNDS.introspectionNesting) {
    throw vf(`the introspection query nests fields/inputFields/interfaces/possibleTypes ${cost.introspectionNesting} levels deep, more than the limit of ${HARD_BOUNDS.introspectionNesting}`, '$');
  }
  if (!limits) return;
  if (limits.depth !== undefined && cost.depth > limits.depth) {
    throw vf(`the query depth ${cost.depth} exceeds the depth limit of ${limits.depth} for role ${showName(limits.role)}`, '$');
  }
  if (limits.nodes !== undefined && cost.nodes > limits.nodes) {
    throw vf(`the query selects ${cost.nodes} fields, more than the node limit of ${limits.nodes} for role ${showName(limits.role)}`, '$');
  }
}

/** The hard bound on selections, as an error (also thrown by the walker's own budget). */
export const tooLarge = () =>
  vf(`the query is too large: it selects too many fields once its fragments are expanded (more than ${HARD_BOUNDS.work} work units: a leaf field counts 1, a field with a sub-selection 20)`, '$');

/** Refuses a batched request with more operations than the role's batch limit. */
export function checkBatchSize(size: number, limits: RoleLimits): void {
  if (limits.batch !== undefined && size > limits.batch) {
    throw vf(`the batch has ${size} operations, more than the batch limit of ${limits.batch} for role ${showName(limits.role)}`, '$');
  }
}
