export * from './kriti/index.js';
export type { BodyTransform, RequestTransform, ResponseTransform, WebhookRequest } from './transformTypes.js';
export { decodeRequestTransform, decodeResponseTransform } from './decodeTransforms.js';
export {
  applyRequestTransform, applyResponseTransform, escapeComponent, requestBindings, transformError, type TransformContext,
} from './applyTransforms.js';
