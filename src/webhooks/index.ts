export { postJson, closeWebhookAgents, type PostJsonRequest, type WebhookResult } from './postJson.js';
export { assertEnvNameAllowed, resolveHeaders, redactedHeaders, type HeaderConf, type ResolvedHeader } from './headers.js';
export { isUrlConf, resolveUrlConf, resolveUrlTemplate, resolveWebhook, type UrlConf } from './urlTemplate.js';
