export { ensureScheduledTables } from './scheduledTables.js';
export {
  decodeCronTrigger,
  decodeScheduledEvent,
  decodeRetryConf,
  decodeCronSchedule,
  decodeTimestamp,
  assertEnvResolvable,
  encodeCronTrigger,
  DEFAULT_SCHEDULED_RETRY_CONF,
  type CronTriggerDef,
  type ScheduledEventDef,
  type ScheduledRetryConf,
} from './decodeScheduled.js';
export {
  listCronTriggers,
  cronTriggerExists,
  upsertCronTrigger,
  deleteCronTriggers,
  deleteCronTriggersInMetadata,
  generateCronEvents,
  nextOccurrences,
  CRON_EVENTS_AHEAD,
} from './cronTriggers.js';
export { insertScheduledEvent } from './scheduledEvents.js';
export { cronEventQueue, scheduledEventQueue, scheduledBody, CRON_EVENTS_QUEUE, SCHEDULED_EVENTS_QUEUE } from './scheduledQueues.js';
export { startScheduledWorker, scheduledWritten, SCHEDULED_CHANNEL, type ScheduledWorkerHandle } from './scheduledWorker.js';
