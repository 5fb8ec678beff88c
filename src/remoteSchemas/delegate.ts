/**
 * Delegation of remote root fields. The planner gives each remote root field an `ext:remote` plan
 * (its field nodes, the operation's variable definitions and fragments). At execution the fields of
 * one operation are grouped by remote: each remote gets ONE request carrying only its fields, with
 * aliases, arguments, variables (only those used), fragments and directives as the client wrote
 * them; the answers are put back under the client's aliases, and the remote's errors (paths are the
 * client's, aliases being kept) are returned next to `data`. The document sent is printed and
 * checked against the remote's schema once per compiled operation. With remote schema permissions,
 * the role's `@preset` values are added (see presets.ts).
 */
import {
  Kind, buildClientSchema, print, typeFromAST, validate, type DocumentNode, type FieldNode, type GraphQLInputType, type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, type Session } from '../core/index.js';
import type { NField, NormalizedOperation, OutputFieldMeta } from '../graphql/index.js';
import { remoteAsSeen, remoteViewFor, type RemoteRoleView, type RemoteSchemaInfo, type SchemaCache } from '../metadata/index.js';
import { type PlanContext, type RootFieldPlan } from '../planner/index.js';
import { usedFragments, usedVariables } from './documents.js';
import { addPresets, presetInVariable, presetValue, type PresetVariable } from './presets.js';
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
  /** The preset variables added for the role (empty without remote schema permissions). */
  presets: PresetVariable[];
  /** Client variables whose values may need preset input fields: name → type. */
  presetInputs: Array<{ name: string; type: GraphQLInputType }>;
}

const prepared = new WeakMap<object, Map<string, PreparedRemote>>();

/** The printed (and validated) request for one remote of one compiled operation. */
function prepare(key: object, remote: RemoteSchemaInfo, plans: readonly RemoteFieldPlan[], view: RemoteRoleView | undefined, role: string): PreparedRemote {
  let byRemote = prepared.get(key);
  if (!byRemote) prepared.set(key, (byRemote = new Map()));
  const memoKey = view ? `${remote.name}\u0000${role}` : remote.name;
  let p = byRemote.get(memoKey);
  if (!p) {
    const schema = remoteClientSchema(remote);
    const built = remoteDocument(plans);
    // What the client asked is checked against the role's part of the remote, what is sent against the remote.
    const asked = view ? validate(remoteClientSchema(remoteAsSeen(remote, view)), built.doc) : [];
    if (asked.length > 0) throw new ApiError('validation-failed', asked[0].message);
    const { doc, presets } = view ? addPresets(built.doc, schema, view) : { doc: built.doc, presets: [] };
    const problems = validate(schema, doc);
    if (problems.length > 0) throw new ApiError('validation-failed', problems[0].message);
    const presetInputs: PreparedRemote['presetInputs'] = [];
    if (view && view.inputPresets.size > 0) {
      for (const d of plans[0].op.operation.variableDefinitions ?? []) {
        const type = typeFromAST(schema, d.type) as GraphQLInputType | undefined;
        if (type && built.variables.includes(d.variable.name.value)) presetInputs.push({ name: d.variable.name.value, type });
      }
    }
    p = { query: print(doc), variables: built.variables, presets, presetInputs };
    byRemote.set(memoKey, p);
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
    const view = remoteViewFor(args.cache, remote, args.session.role) ?? undefined;
    const req = prepare(args.key, remote, group, view, args.session.role);
    const variables: Record<string, unknown> = {};
    for (const v of req.variables) if (v in args.variables) variables[v] = args.variables[v];
    if (view) {
      const schema = remoteClientSchema(remote);
      for (const { name: v, type } of req.presetInputs) if (v in variables) variables[v] = presetInVariable(variables[v], type, view, args.session, schema);
      for (const p of req.presets) variables[p.name] = presetValue(p.preset, args.session, schema);
    }
    const sendVariables = req.variables.length > 0 || req.presets.length > 0;
    const answer = await callRemote({
      url: remote.url,
      headers: remoteRequestHeaders(remote, args.session, args.clientHeaders),
      timeoutSeconds: remote.timeoutSeconds,
      body: { query: req.query, ...(sendVariables ? { variables } : {}), ...(group[0].op.operation.name ? { operationName: group[0].op.operation.name.value } : {}) },
    });
    if (answer.errors) errors.push(...answer.errors);
    const cookie = answer.headers['set-cookie'];
    if (cookie !== undefined && responseHeaders) responseHeaders['set-cookie'] = cookie;
    for (const p of group) out.set(p.alias, JSON.stringify(answer.data?.[p.alias] ?? null));
  }));
  return out;
}
