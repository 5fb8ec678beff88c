/** GET /v1/version — `{"version": "<package.json version>"}`. */
import { jsonResponse, type Handler } from './handlerTypes.js';

export const version: Handler = async (_req, ctx) => jsonResponse(200, { version: ctx.version });
