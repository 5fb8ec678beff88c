export { syncEventTriggers, captureFunctionName, captureFunctionBody } from './captureTriggers.js';
export { startEventWorker, eventsWritten, EVENTS_CHANNEL } from './eventWorker.js';
export { insertManualEvent, redeliverEvent } from './eventLog.js';
export { eventQueue, eventBody, EVENT_LOG_QUEUE } from './eventQueue.js';
export { eventTablesExist } from './eventTables.js';
