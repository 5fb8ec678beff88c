/**
 * `set_api_limits` / `remove_api_limits` (Hasura v2's metadata API, issue 17). `set_api_limits`
 * replaces the whole `api_limits` object of the metadata with its args (decoded first: a bad
 * value is a 400 and changes nothing); `remove_api_limits` deletes it. Both adopt the draft through
 * `work.change`, so the new schema cache (and with it every cached plan) carries the new limits.
 */
import { asObject, decodeApiLimits, encodeApiLimits } from '../../metadata/index.js';
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
