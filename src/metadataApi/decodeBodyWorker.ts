/** The worker thread of decodeBody.ts: decodes the bodies it is sent (see lib/offThread.ts). */
import { serveOffThread } from '../lib/index.js';
import { decodeAnswer } from './decodeBody.js';

serveOffThread(decodeAnswer);
