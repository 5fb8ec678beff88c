/** A worker thread for tests of lib/offThread.ts: answers each job with its length. */
import { serveOffThread } from '../../src/lib/index.js';

serveOffThread((job: string) => job.length);
