import { ApiError, jsonTypeName } from '../core/index.js';
import { KritiError, parseKriti } from './kriti/index.js';
import type { BodyTransform, RequestTransform, ResponseTransform } from './transformTypes.js';

const parseFailed = (message: string, path: string): ApiError => new ApiError('parse-failed', message, { path });
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function str(v: unknown, path: string): string {
  if (typeof v !== 'string') throw parseFailed(`expected String, encountered ${jsonTypeName(v)}`, path);
  return v;
}

function obj(v: unknown, path: string): Record<string, unknown> {
  if (!isObj(v)) throw parseFailed(`expected Object, encountered ${jsonTypeName(v)}`, path);
  return v;
}

/** A template that does not parse is refused here, at metadata time, with Kriti's message and position. */
function checkTemplate(template: string, path: string, interpolation = false): string {
  try {
    parseKriti(interpolation ? `"${template}"` : template);
  } catch (e) {
    if (!(e instanceof KritiError)) throw e;
    const { start } = e.span;
    throw new ApiError('parse-failed', `Kriti template parse error at line ${start.line}, column ${start.col}: ${e.message}`, {
      path,
      internal: [e.toJSON()],
    });
  }
  return template;
}

function version(o: Record<string, unknown>, path: string): 1 | 2 | undefined {
  if (o.version === undefined || o.version === null) return undefined;
  if (o.version !== 1 && o.version !== 2) throw parseFailed(`expected 1 or 2 for version, but found ${JSON.stringify(o.version)}`, `${path}.version`);
  return o.version;
}

function engine(o: Record<string, unknown>, path: string): 'Kriti' | undefined {
  if (o.template_engine === undefined || o.template_engine === null) return undefined;
  if (o.template_engine !== 'Kriti') throw parseFailed(`expected "Kriti" for template_engine, but found ${JSON.stringify(o.template_engine)}`, `${path}.template_engine`);
  return 'Kriti';
}

/** The `version` and `template_engine` both kinds of transform start with (only those given). */
function header(o: Record<string, unknown>, path: string): { version?: 1 | 2; template_engine?: 'Kriti' } {
  const out: { version?: 1 | 2; template_engine?: 'Kriti' } = {};
  const ver = version(o, path);
  if (ver !== undefined) out.version = ver;
  const eng = engine(o, path);
  if (eng) out.template_engine = eng;
  return out;
}

function decodeBodyAction(v: unknown, path: string, allowForm: boolean): BodyTransform {
  const o = obj(v, path);
  const action = str(o.action, `${path}.action`);
  if (action === 'transform') return { action, template: checkTemplate(str(o.template, `${path}.template`), `${path}.template`) };
  if (action === 'remove') return { action };
  if (action === 'x_www_form_urlencoded' && allowForm) {
    const form = obj(o.form_template, `${path}.form_template`);
    const out: Record<string, string> = {};
    for (const [k, t] of Object.entries(form)) out[k] = checkTemplate(str(t, `${path}.form_template.${k}`), `${path}.form_template.${k}`, true);
    return { action, form_template: out };
  }
  throw parseFailed(`unknown body action ${JSON.stringify(action)}`, `${path}.action`);
}

/** A `request_transform` as given in `create_action` / `create_event_trigger` / metadata files; throws parse-failed. */
export function decodeRequestTransform(v: unknown, path: string): RequestTransform {
  const o = obj(v, path);
  const out: RequestTransform = header(o, path);
  const ver = out.version;
  if (o.method !== undefined && o.method !== null) {
    const m = str(o.method, `${path}.method`).toUpperCase();
    if (!/^[A-Z]+$/.test(m)) throw parseFailed(`invalid method ${JSON.stringify(o.method)}`, `${path}.method`);
    out.method = m;
  }
  if (o.url !== undefined && o.url !== null) out.url = checkTemplate(str(o.url, `${path}.url`), `${path}.url`, true);
  if (o.query_params !== undefined && o.query_params !== null) {
    if (typeof o.query_params === 'string' && ver !== 1) out.query_params = checkTemplate(o.query_params, `${path}.query_params`, true);
    else {
      const q = obj(o.query_params, `${path}.query_params`);
      const qp: Record<string, string | null> = {};
      for (const [k, t] of Object.entries(q)) {
        checkTemplate(k, `${path}.query_params`, true);
        qp[k] = t === null ? null : checkTemplate(str(t, `${path}.query_params.${k}`), `${path}.query_params.${k}`, true);
      }
      out.query_params = qp;
    }
  }
  if (o.request_headers !== undefined && o.request_headers !== null) {
    const hp = `${path}.request_headers`;
    const h = obj(o.request_headers, hp);
    const rh: NonNullable<RequestTransform['request_headers']> = {};
    if (h.add_headers !== undefined && h.add_headers !== null) {
      const add: Record<string, string> = {};
      for (const [k, t] of Object.entries(obj(h.add_headers, `${hp}.add_headers`))) add[k] = checkTemplate(str(t, `${hp}.add_headers.${k}`), `${hp}.add_headers.${k}`, true);
      rh.add_headers = add;
    }
    if (h.remove_headers !== undefined && h.remove_headers !== null) {
      if (!Array.isArray(h.remove_headers)) throw parseFailed(`expected Array, encountered ${jsonTypeName(h.remove_headers)}`, `${hp}.remove_headers`);
      rh.remove_headers = h.remove_headers.map((x, i) => str(x, `${hp}.remove_headers[${i}]`));
    }
    out.request_headers = rh;
  }
  if (o.body !== undefined && o.body !== null) {
    if (typeof o.body === 'string') {
      if (ver === 2) throw parseFailed('expected Object, encountered String', `${path}.body`);
      out.body = checkTemplate(o.body, `${path}.body`);
    } else {
      if (ver === 1) throw parseFailed(`expected String, encountered ${jsonTypeName(o.body)}`, `${path}.body`);
      out.body = decodeBodyAction(o.body, `${path}.body`, true);
    }
  }
  if (o.content_type !== undefined && o.content_type !== null) {
    const ct = str(o.content_type, `${path}.content_type`);
    if (ct !== 'application/json' && ct !== 'application/x-www-form-urlencoded') {
      throw parseFailed(`expected "application/json" or "application/x-www-form-urlencoded" for content_type, but found ${JSON.stringify(ct)}`, `${path}.content_type`);
    }
    out.content_type = ct;
  }
  return out;
}

/** A `response_transform` (actions); throws parse-failed. */
export function decodeResponseTransform(v: unknown, path: string): ResponseTransform {
  const o = obj(v, path);
  const out: ResponseTransform = header(o, path);
  const ver = out.version;
  if (o.body !== undefined && o.body !== null) {
    if (typeof o.body === 'string') {
      if (ver === 2) throw parseFailed('expected Object, encountered String', `${path}.body`);
      out.body = checkTemplate(o.body, `${path}.body`);
    } else {
      if (ver === 1) throw parseFailed(`expected String, encountered ${jsonTypeName(o.body)}`, `${path}.body`);
      const b = decodeBodyAction(o.body, `${path}.body`, false);
      out.body = b as ResponseTransform['body'];
    }
  }
  return out;
}
