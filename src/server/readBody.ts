/** Reads a request body into one Buffer, refusing bodies over `limit` bytes with 413. */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../core/index.js';

const EMPTY = Buffer.alloc(0);

const tooLarge = (limit: number) =>
  new ApiError('invalid-params', `request body is larger than ${limit} bytes`, { status: 413 });

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : chunks.length === 0 ? EMPTY : Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}
