export type { QueueTable, QueueAdapter, Job, JobResult, DeliveryPlan, DeliveryStats } from './queueTable.js';
export { startDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from './deliveryWorker.js';
export { createNotifier, type Notifier } from './notifier.js';
export { runFragment } from './runFragment.js';
export { claimStatement, finishStatement, releaseStatement, countsStatement, depthStatement } from './queueSql.js';
export { attemptOutcome, type AttemptOutcome } from './attemptOutcome.js';
export { queueDepth, type QueueDepth } from './queueDepth.js';
