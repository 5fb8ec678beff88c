/**
 * GET /api/swagger/json (admin only): an OpenAPI 3.0 document of the REST endpoints, as Hasura v2
 * serves it. Per endpoint and method: the URL template with `{name}` path parameters, the other
 * variables as query parameters (GET, DELETE) or a JSON request body (POST, PUT, PATCH), and the
 * response schema read from the stored query's selection set over the admin schema. Input objects
 * and enums are named schemas under `components.schemas` (input objects may be recursive).
 */
import {
  Kind, getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType, isObjectType, isInterfaceType, isScalarType, parse,
  type FragmentDefinitionNode, type GraphQLInputType, type GraphQLOutputType, type GraphQLSchema, type GraphQLType, type SelectionSetNode, typeFromAST,
} from 'graphql';
import { ApiError } from '../core/index.js';
import { resolveSession } from '../auth/index.js';
import { ENGINE_PARTS } from '../appState.js';
import { getRoleSchema } from '../graphql/index.js';
import type { SchemaCache } from '../metadata/index.js';
import { jsonResponse, type Handler } from './handlerTypes.js';
import { restRoutes, type RestRoute } from './restRouter.js';

type Schema = Record<string, unknown>;

const INTEGER = new Set(['Int', 'int2', 'int4', 'smallint', 'integer']);
const NUMBER = new Set(['Float', 'float4', 'float8', 'numeric', 'bigint', 'int8', 'money']);
const BOOLEAN = new Set(['Boolean', 'bool']);
const ANY = new Set(['json', 'jsonb']);

/** The schemas of named input types, filled while the document is built. */
class Components {
  readonly schemas: Record<string, Schema> = {};

  /** The schema of an input (variable) type. */
  input(t: GraphQLType): Schema {
    if (isNonNullType(t)) return { ...this.input(t.ofType), nullable: false };
    if (isListType(t)) return { type: 'array', items: this.input(t.ofType), nullable: true };
    if (isInputObjectType(t)) {
      if (!(t.name in this.schemas)) {
        this.schemas[t.name] = { type: 'object' };
        const properties = Object.fromEntries(Object.values(t.getFields()).map((f) => [f.name, this.input(f.type)]));
        this.schemas[t.name] = { type: 'object', title: t.name, ...(t.description ? { description: t.description } : {}), properties };
      }
      return { $ref: `#/components/schemas/${t.name}` };
    }
    if (isEnumType(t)) {
      this.schemas[t.name] ??= { type: 'string', title: t.name, enum: t.getValues().map((v) => v.name) };
      return { $ref: `#/components/schemas/${t.name}` };
    }
    return { ...scalar(t.toString()), nullable: true };
  }
}

function scalar(name: string): Schema {
  if (ANY.has(name)) return { title: name };
  const type = INTEGER.has(name) ? 'integer' : NUMBER.has(name) ? 'number' : BOOLEAN.has(name) ? 'boolean' : 'string';
  return { type, title: name };
}

/** The response schema of a selection set over `parent`. */
function output(t: GraphQLOutputType, sel: SelectionSetNode | undefined, frags: Map<string, FragmentDefinitionNode>, nullable = true): Schema {
  if (isNonNullType(t)) return output(t.ofType, sel, frags, false);
  if (isListType(t)) return { type: 'array', items: output(t.ofType, sel, frags), nullable };
  if (isObjectType(t) || isInterfaceType(t)) {
    const properties: Record<string, Schema> = {};
    const fields = t.getFields();
    const walk = (s: SelectionSetNode | undefined) => {
      for (const node of s?.selections ?? []) {
        if (node.kind === Kind.FIELD) {
          const key = node.alias?.value ?? node.name.value;
          const f = fields[node.name.value];
          properties[key] = node.name.value === '__typename' ? { type: 'string', nullable: false } : f ? output(f.type, node.selectionSet, frags) : {};
        } else if (node.kind === Kind.INLINE_FRAGMENT) walk(node.selectionSet);
        else walk(frags.get(node.name.value)?.selectionSet);
      }
    };
    walk(sel);
    return { type: 'object', title: t.name, ...(t.description ? { description: t.description } : {}), properties, nullable };
  }
  const named = getNamedType(t);
  return { ...(isEnumType(named) ? { type: 'string', enum: named.getValues().map((v) => v.name) } : scalar(isScalarType(named) ? named.name : String(named))), nullable };
}

/** One path item's operation for `method`. */
function operationFor(route: RestRoute, method: string, schema: GraphQLSchema, components: Components): Schema {
  const { endpoint, operation, query } = route;
  const doc = parse(query);
  const frags = new Map(doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]));
  const pathVars = new Set(route.segments.flatMap((s) => ('variable' in s ? [s.variable] : [])));
  const parameters: Schema[] = [{ in: 'header', name: 'x-svc-admin-secret', description: 'Your x-svc-admin-secret will be used for authentication of the API request.', schema: { type: 'string' } }];
  const bodyProps: Record<string, Schema> = {};
  for (const d of operation.variableDefinitions ?? []) {
    const name = d.variable.name.value;
    const type = typeFromAST(schema, d.type as never) as GraphQLInputType | undefined;
    const s = type ? components.input(type) : {};
    const required = d.type.kind === Kind.NON_NULL_TYPE && !d.defaultValue;
    if (pathVars.has(name)) parameters.push({ in: 'path', name, required: true, description: `_"${name}" is required as part of the path_`, schema: s });
    else if (method === 'get' || method === 'delete') parameters.push({ in: 'query', name, required, description: `_"${name}" is ${required ? 'required' : 'optional'}_`, schema: s });
    if (method !== 'get' && method !== 'delete') bodyProps[name] = s;
  }
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const out: Schema = {
    summary: endpoint.name,
    description: `${endpoint.comment ? `${endpoint.comment}\n\n` : ''}***\nThe GraphQl query for this endpoint is:\n\`\`\` graphql\n${query}\n\`\`\``,
    parameters,
    responses: {
      '200': {
        description: `Responses for ${method.toUpperCase()} /api/rest/${endpoint.url}`,
        content: { 'application/json': { schema: root ? output(root, operation.selectionSet, frags, false) : { type: 'object' } } },
      },
    },
  };
  if (Object.keys(bodyProps).length > 0) {
    out.requestBody = {
      description: 'Query parameters can also be provided in the request body as a JSON object',
      required: false,
      content: { 'application/json': { schema: { type: 'object', properties: bodyProps } } },
    };
  }
  return out;
}

/** The OpenAPI 3.0 document of the REST endpoints of `cache`. */
export function openApiDocument(cache: SchemaCache): Schema {
  const schema = getRoleSchema(cache, 'admin', ENGINE_PARTS.schema).schema;
  const components = new Components();
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of restRoutes(cache)) {
    const path = '/api/rest/' + route.segments.map((s) => ('variable' in s ? `{${s.variable}}` : s.literal)).join('/');
    const item = (paths[path] ??= {});
    for (const m of route.endpoint.methods) item[m.toLowerCase()] = operationFor(route, m.toLowerCase(), schema, components);
  }
  return {
    openapi: '3.0.0',
    info: { version: '', title: 'Rest Endpoints', description: 'This OpenAPI specification is automatically generated by svc-graphql-engine.' },
    paths,
    components: Object.keys(components.schemas).length > 0 ? { schemas: components.schemas } : {},
  };
}

export const swaggerJson: Handler = async (req, ctx) => {
  try {
    const session = await resolveSession(req.headers, ctx.config, req.body);
    if (!session.isAdmin) throw new ApiError('access-denied', 'you have to be admin to access this endpoint');
    return jsonResponse(200, openApiDocument(ctx.state.current));
  } catch (e) {
    const err = e instanceof ApiError ? e : new ApiError('unexpected', 'unexpected error', { status: 500, internal: String(e) });
    return jsonResponse(err.status, err.toQueryBody(ctx.config.devMode));
  }
};
