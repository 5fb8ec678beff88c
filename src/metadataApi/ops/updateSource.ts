/**
 * `update_source` (Hasura v2's `pg_update_source` on /v1/metadata): sets the `customization` of the
 * one source, `default` (any other name is `not-exists`). `customization` replaces the stored one
 * whole (`{}` goes back to the server's default naming convention); absent, it is left as it is.
 * The database connection is the engine's own (`--database-url`): a `configuration` is refused, not
 * ignored. The new names hold from the next request on (the schema cache is rebuilt).
 */
import { ApiError } from '../../core/index.js';
import { asObject, decodeSourceCustomization, encodeSourceCustomization, type SourceCustomization } from '../../metadata/index.js';
import { op, SUCCESS } from '../types.js';

interface UpdateSourceArgs {
  customization?: SourceCustomization;
}

function decodeUpdateSource(args: unknown, path: string): UpdateSourceArgs {
  const o = asObject(args, path);
  for (const k of Object.keys(o)) {
    if (!['name', 'customization', 'configuration', 'replace_configuration', 'kind'].includes(k)) {
      throw new ApiError('parse-failed', `unexpected key ${JSON.stringify(k)} in update_source`, { path: `${path}.${k}` });
    }
  }
  if (typeof o.name !== 'string') throw new ApiError('parse-failed', 'the key "name" was not present', { path });
  if (o.name !== 'default') throw new ApiError('not-exists', `source with name ${JSON.stringify(o.name)} does not exist`, { path: `${path}.name` });
  if (o.configuration !== undefined && o.configuration !== null) {
    throw new ApiError('not-supported', "the source's connection is the engine's own (--database-url); \"configuration\" cannot be changed here", { path: `${path}.configuration` });
  }
  if (o.customization === undefined || o.customization === null) return {};
  return { customization: decodeSourceCustomization(o.customization, `${path}.customization`) };
}

export const update_source = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeUpdateSource(args, path),
  async run(ctx, args) {
    if (!args.customization) return SUCCESS;
    const md = await ctx.work.draft();
    const customization = encodeSourceCustomization(args.customization);
    if (customization) md.source_customization = customization;
    else delete md.source_customization;
    await ctx.work.change(md);
    return SUCCESS;
  },
});
