/**
 * Delegation of remote root fields. The planner gives each remote root field an `ext:remote` plan
 * (its field nodes, the operation's variable definitions and fragments). At execution the fields of
 * one operation are grouped by remote: each remote gets ONE request carrying only its fields, with
 * aliases, arguments, variables (only those used), fragments and directives as the client wrote
 * them; the answers are put back under the client's aliases, and the remote's errors (paths are the
 * client's, aliases being kept) are returned next to `data`. The document sent is printed and
 * checked against the remote's schema once per compiled operation.
 */
import {
  Kind, buildClientSchema, print, validate, type DocumentNode, type FieldNode, type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, type Session } from '../core/index.js';
import type { NField, NormalizedOperation, OutputFieldMeta } from '../graphql/index.js';
import type { RemoteSchemaInfo, SchemaCache } from '../metadata/index.js';
import { type PlanContext, type RootFieldPlan } from '../planner/index.js';
import { usedFragments, usedVariables } from './documents.js';
import { remoteRequestHeaders } from './remoteHeaders.js';
import { callRemote } from './remoteRequest.js';

/** The plan of one remote root field. */
export interface RemoteFieldPlan {
  remote: string;
  alias: string;
  nodes: FieldNode[];
  op: NormalizedOperation;
}

const clientSchemas = new WeakMap<RemoteSchemaInfo, GraphQLSchema>();

/** The remote's schema as graphql-js sees it (for validating what is sent). */
export function remoteClientSchema(remote: RemoteSchemaInfo): GraphQLSchema {
  let s = clientSchemas.get(remote);
  if (!s) clientSchemas.set(remote, (s = buildClientSchema(remote.introspection, { assumeValid: true })));
  return s;
}

/** Plans `ext:remote` root fields (delegated to a remote schema). */
export function planRemoteField(field: NField, meta: OutputFieldMeta, _ctx: PlanContext, op: NormalizedOperation): RootFieldPlan {
  if (op.kind === 'subscription') throw new ApiError('not-supported', 'subscription to remote server is not supported');
  const plan: RemoteFieldPlan = { remote: String((meta as { remote?: unknown }).remote), alias: field.alias, nodes: field.nodes, op };
  return { alias: field.alias, kind: 'ext:remote', plan };
}

/** The document one remote gets for `plans` (all of the same operation and remote). */
function remoteDocument(plans: readonly RemoteFieldPlan[]): { doc: DocumentNode; variables: string[] } {
  const op = plans[0].op;
  const nodes = plans.flatMap((p) => p.nodes);
  const fragments = usedFragments(nodes, op.fragments);
  const used = usedVariables([...nodes, ...fragments]);
  const operation: OperationDefinitionNode = {
    kind: Kind.OPERATION_DEFINITION,
    operation: op.operation.operation,
    name: op.operation.name,
    variableDefinitions: (op.operation.variableDefinitions ?? []).filter((v) => used.has(v.variable.name.value)),
    selectionSet: { kind: Kind.SELECTION_SET, selections: nodes },
  };
  return { doc: { kind: Kind.DOCUMENT, definitions: [operation, ...fragments] }, variables: [...used] };
}

interface PreparedRemote {
  query: string;
  variables: string[];
}

const prepared = new WeakMap<object, Map<string, PreparedRemote>>();

/** The printed (and validated) request for one remote of one compiled operation. */
function prepare(key: object, remote: RemoteSchemaInfo, plans: readonly RemoteFieldPlan[]): PreparedRemote {
  let byRemote = prepared.get(key);
  if (!byRemote) prepared.set(key, (byRemote = new Map()));
  let p = byRemote.get(remote.name);
  if (!p) {
    const { doc, variables } = remoteDocument(plans);
    const problems = validate(remoteClientSchema(remote), doc);
    if (problems.length > 0) throw new ApiError('validation-failed', problems[0].message);
    p = { query: print(doc), variables };
    byRemote.set(remote.name, p);
  }
  return p;
}

export interface DelegationArgs {
  cache: SchemaCache;
  session: Session;
  variables: Record<string, unknown>;
  clientHeaders?: IncomingHttpHeaders;
  /** Identity of the compiled operation (the printed documents are memoised on it). */
  key: object;
}

/**
 * Runs remote root fields: alias → JSON text; remote errors are pushed to `errors`, a remote's
 * `Set-Cookie` to `responseHeaders` (passed back to the client, as Hasura v1.3 does).
 */
export async function executeRemoteFields(
  plans: readonly RemoteFieldPlan[], args: DelegationArgs, errors: unknown[], responseHeaders?: Record<string, string>,
): Promise<Map<string, string>> {
  const groups = new Map<string, RemoteFieldPlan[]>();
  for (const p of plans) groups.set(p.remote, [...(groups.get(p.remote) ?? []), p]);
  const out = new Map<string, string>();
  await Promise.all([...groups].map(async ([name, group]) => {
    const remote = args.cache.remoteSchemas?.get(name);
    if (!remote) throw new ApiError('unexpected', `remote schema ${JSON.stringify(name)} is not available`);
    const req = prepare(args.key, remote, group);
    const variables: Record<string, unknown> = {};
    for (const v of req.variables) if (v in args.variables) variables[v] = args.variables[v];
    const answer = await callRemote({
      url: remote.url,
      headers: remoteRequestHeaders(remote, args.session, args.clientHeaders),
      timeoutSeconds: remote.timeoutSeconds,
      body: { query: req.query, ...(req.variables.length > 0 ? { variables } : {}), ...(group[0].op.operation.name ? { operationName: group[0].op.operation.name.value } : {}) },
    });
    if (answer.errors) errors.push(...answer.errors);
    const cookie = answer.headers['set-cookie'];
    if (cookie !== undefined && responseHeaders) responseHeaders['set-cookie'] = cookie;
    for (const p of group) out.set(p.alias, JSON.stringify(answer.data?.[p.alias] ?? null));
  }));
  return out;
}
