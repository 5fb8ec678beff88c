/**
 * The GraphQL variables of a REST request (Hasura v2's rules): URL segments and query-string
 * parameters are text, read by the type the stored query declares — a list type is refused,
 * a bare key of a Boolean is true, an empty value of a nullable variable is left out (null), JSON
 * `true`/`false` for Boolean and JSON numbers for Int, Float and the numeric types are taken as
 * such, anything else is a string; members of a JSON object body are taken as they are. A name
 * the query does not declare is refused ("Unexpected variable"). The usual variable checks run after.
 */
import { Kind, type OperationDefinitionNode, type TypeNode } from 'graphql';
import { ApiError } from '../core/index.js';

const NUMBER_TYPES = new Set(['Int', 'Float', 'Number', 'Double', 'float8', 'numeric', 'bigint', 'int8', 'smallint', 'int2', 'int4', 'float4']);
const BOOLEAN_TYPES = new Set(['Boolean', 'Bool']);

/** Text (path, query string) or a JSON value (body), by variable name, later sources winning. */
export type RestArgs = Array<[string, { text: string } | { json: unknown }]>;

function decodeText(name: string, type: TypeNode, text: string): unknown {
  const nullable = type.kind !== Kind.NON_NULL_TYPE;
  const inner = type.kind === Kind.NON_NULL_TYPE ? type.type : type;
  if (inner.kind === Kind.LIST_TYPE) {
    throw new ApiError('bad-request', `List variables are not currently supported in URL or Query parameters. (Variable ${name}, with value ${JSON.stringify(text)})`);
  }
  const typeName = inner.name.value;
  if (BOOLEAN_TYPES.has(typeName) && text === '') return true;
  if (nullable && text === '') return undefined;
  if (BOOLEAN_TYPES.has(typeName) && (text === 'true' || text === 'false')) return text === 'true';
  if (NUMBER_TYPES.has(typeName) && text.trim() !== '' && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text.trim())) return Number(text);
  return text;
}

/** The variables object for `operation` from the request's arguments. */
export function restVariables(operation: OperationDefinitionNode, args: RestArgs): Record<string, unknown> {
  const declared = new Map((operation.variableDefinitions ?? []).map((d) => [d.variable.name.value, d.type]));
  const out: Record<string, unknown> = {};
  for (const [name, value] of args) {
    const type = declared.get(name);
    if (!type) throw new ApiError('bad-request', `Unexpected variable ${name}`);
    const v = 'json' in value ? value.json : decodeText(name, type, value.text);
    if (v === undefined) delete out[name];
    else out[name] = v;
  }
  return out;
}
