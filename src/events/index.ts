export { syncEventTriggers, captureFunctionName, captureFunctionBody, type SyncOptions } from './captureTriggers.js';
export { syncSourceEventTriggers, syncOneSource, droppedSources, dropSourceCaptures } from './syncSourceEventTriggers.js';
export { startSourceEventWorkers, type SourceEventWorkers } from './sourceEventWorkers.js';
export { startEventWorker, eventsWritten, EVENTS_CHANNEL } from './eventWorker.js';
export { insertManualEvent, redeliverEvent } from './eventLog.js';
export { eventQueue, eventBody, EVENT_LOG_QUEUE } from './eventQueue.js';
export { eventTablesExist } from './eventTables.js';
