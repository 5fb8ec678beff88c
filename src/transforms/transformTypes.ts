/**
 * Hasura's `request_transform` / `response_transform` metadata (RQL.DDL.Webhook.Transform): version 1
 * (`body` a template string, `content_type`) and version 2 (`body: {action, template | form_template}`),
 * `method`, `url` and `query_params` templates, `request_headers: {add_headers, remove_headers}`,
 * `template_engine: Kriti`. Stored and exported as given (after validation).
 */
export type BodyTransform =
  | { action: 'transform'; template: string }
  | { action: 'remove' }
  | { action: 'x_www_form_urlencoded'; form_template: Record<string, string> };

export interface RequestTransform {
  version?: 1 | 2;
  template_engine?: 'Kriti';
  method?: string | null;
  url?: string | null;
  /** An object of key → value templates, or (version 2) one template for the whole query string. */
  query_params?: Record<string, string | null> | string | null;
  request_headers?: { add_headers?: Record<string, string>; remove_headers?: string[] } | null;
  /** Version 1: a template string; version 2: a body action. */
  body?: BodyTransform | string | null;
  /** Version 1 only: `application/json` or `application/x-www-form-urlencoded`. */
  content_type?: string | null;
}

export interface ResponseTransform {
  version?: 1 | 2;
  template_engine?: 'Kriti';
  body?: { action: 'transform'; template: string } | { action: 'remove' } | string | null;
}

/** An outbound webhook request before or after a transform. */
export interface WebhookRequest {
  method: string;
  url: string;
  /** Header names lower case. */
  headers: Record<string, string>;
  /** The JSON value sent, or a string already encoded (form body), or undefined for no body. */
  body: unknown;
  /** How `body` is sent: JSON-encoded, as a raw string, or not at all. */
  bodyKind: 'json' | 'raw' | 'none';
}
