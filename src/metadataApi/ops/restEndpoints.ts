/**
 * `create_rest_endpoint` / `drop_rest_endpoint` (Hasura v2's metadata API): an endpoint names a
 * query of a query collection and the URL template and methods it is served at, under /api/rest/.
 * The new document is checked whole (query present, one operation, not a subscription, no URL
 * another endpoint could also match) before it is adopted: a refused call changes nothing.
 */
import { ApiError } from '../../core/index.js';
import { asNonEmptyText, asObject, assertRestEndpointsValid, decodeRestEndpoint, required } from '../../metadata/index.js';
import { op, SUCCESS } from '../types.js';

export const create_rest_endpoint = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeRestEndpoint(args, path),
  async run(ctx, endpoint) {
    const md = await ctx.work.draft();
    if ((md.rest_endpoints ?? []).some((e) => e.name === endpoint.name)) {
      throw new ApiError('already-exists', `Endpoint with name: ${endpoint.name} already exists`, { path: '$.args' });
    }
    md.rest_endpoints = [...(md.rest_endpoints ?? []), endpoint];
    assertRestEndpointsValid(md);
    await ctx.work.change(md);
    return SUCCESS;
  },
});

export const drop_rest_endpoint = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => ({ name: required(asObject(args, path), 'name', path, asNonEmptyText) }),
  async run(ctx, { name }) {
    const md = await ctx.work.draft();
    if (!(md.rest_endpoints ?? []).some((e) => e.name === name)) {
      throw new ApiError('not-exists', `endpoint with name: ${name} does not exist`, { path: '$.args' });
    }
    md.rest_endpoints = (md.rest_endpoints ?? []).filter((e) => e.name !== name);
    if (md.rest_endpoints.length === 0) delete md.rest_endpoints;
    await ctx.work.change(md);
    return SUCCESS;
  },
});
