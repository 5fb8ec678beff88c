/**
 * Scheduled-trigger operations: `create_cron_trigger` (with `replace`), `delete_cron_trigger`,
 * `create_scheduled_event`. Cron triggers live in `hdb_catalog.hdb_cron_triggers` (not in the
 * metadata document, as in Hasura v1.3), written in the request's transaction together with their
 * first 100 occurrences; the scheduler is re-armed after COMMIT (runQuery calls `scheduledWritten`).
 */
import { ApiError } from '../../core/index.js';
import { asObject, asString, required } from '../../metadata/index.js';
import {
  assertEnvResolvable,
  cronTriggerExists,
  decodeCronTrigger,
  decodeScheduledEvent,
  deleteCronTriggers,
  insertScheduledEvent,
  upsertCronTrigger,
} from '../../scheduled/index.js';
import { op, SUCCESS } from '../types.js';

export const create_cron_trigger = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeCronTrigger(args, path),
  async run(ctx, args) {
    assertEnvResolvable(args.webhook, args.headers, '$.args', process.env);
    const { replace, ...def } = args;
    const exists = await cronTriggerExists(ctx.client, def.name);
    if (exists && !replace) throw new ApiError('already-exists', `cron trigger with name: ${def.name} already exists`, { path: '$.args' });
    // `replace: true` updates an existing trigger only, as Hasura v1.3's updateCronTrigger (checkExists).
    if (!exists && replace) throw new ApiError('not-exists', `cron trigger with name: ${def.name} does not exist`, { path: '$.args' });
    await upsertCronTrigger(ctx.client, def);
    return SUCCESS;
  },
});

export const delete_cron_trigger = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    return { name: required(asObject(args, path), 'name', path, asString) };
  },
  async run(ctx, args) {
    if ((await deleteCronTriggers(ctx.client, [args.name])) === 0) {
      throw new ApiError('not-exists', `cron trigger with name: ${args.name} does not exist`, { path: '$.args' });
    }
    return SUCCESS;
  },
});

export const create_scheduled_event = op({
  adminOnly: true,
  mutates: false,
  decode: (args, path) => decodeScheduledEvent(args, path),
  async run(ctx, args) {
    assertEnvResolvable(args.webhook, args.headers, '$.args', process.env);
    const id = await insertScheduledEvent(ctx.client, args);
    return { message: 'success', event_id: id };
  },
});
