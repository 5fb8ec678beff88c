/**
 * `set_api_limits` / `remove_api_limits` (Hasura v2's metadata API). `set_api_limits`
 * replaces the whole `api_limits` object of the metadata with its args (decoded first: a bad
 * value is a 400 and changes nothing); `remove_api_limits` deletes it. Both adopt the draft through
 * `work.change`, so the new schema cache (and with it every cached plan) carries the new limits.
 * Every limit kind of Hasura's is stored; those the engine will not apply (`time_limit`, `rate_limit`,
 * and all of them under --hasura-compat without --apply-api-limits) are named in a warning.
 */
import { asObject, decodeApiLimits, decodeIntrospectionOptions, describeApiLimits, encodeApiLimits, encodeIntrospectionOptions } from '../../metadata/index.js';
import { op, SUCCESS } from '../types.js';

export const set_api_limits = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeApiLimits(args, path),
  async run(ctx, limits) {
    const md = await ctx.work.draft();
    if (encodeApiLimits(limits)) md.api_limits = limits;
    else delete md.api_limits;
    await ctx.work.change(md);
    const stored: string[] = [];
    if (ctx.engine.limitDefaults?.ignoreMetadataLimits === true) stored.push(...describeApiLimits(limits));
    else stored.push(...describeApiLimits({ time_limit: limits.time_limit, rate_limit: limits.rate_limit }));
    if (stored.length > 0) {
      const why = ctx.engine.limitDefaults?.ignoreMetadataLimits === true ? 'with --hasura-compat, api_limits are applied only with --apply-api-limits' : 'this engine applies depth_limit, node_limit and batch_limit only';
      ctx.engine.logger.warn({ type: 'api-limits', path: ctx.path }, `set_api_limits: stored, not applied: ${stored.join('; ')} (${why})`);
    }
    return SUCCESS;
  },
});

export const remove_api_limits = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => (args === undefined || args === null ? {} : asObject(args, path)),
  async run(ctx) {
    const md = await ctx.work.draft();
    delete md.api_limits;
    await ctx.work.change(md);
    return SUCCESS;
  },
});

/**
 * `set_graphql_schema_introspection_options` (Hasura v2): replaces `graphql_schema_introspection`
 * with its args; the roles listed lose `__schema` / `__type` from the next request on.
 */
export const set_graphql_schema_introspection_options = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeIntrospectionOptions(args ?? {}, path),
  async run(ctx, options) {
    const md = await ctx.work.draft();
    if (encodeIntrospectionOptions(options)) md.graphql_schema_introspection = options;
    else delete md.graphql_schema_introspection;
    await ctx.work.change(md);
    return SUCCESS;
  },
});
