/** The worker thread of storedDocument.ts: decodes and encodes stored metadata (see lib/offThread.ts). */
import { serveOffThread } from '../../lib/index.js';
import { storedJob } from './storedDocument.js';

serveOffThread(storedJob);
