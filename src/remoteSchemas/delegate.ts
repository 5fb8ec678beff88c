/**
 * Delegation of remote root fields. The planner gives each remote root field an `ext:remote` plan
 * (its field nodes, the operation's variable definitions and fragments). At execution the fields of
 * one operation are grouped by remote: each remote gets ONE request carrying only its fields, with
 * aliases, arguments, variables (only those used), fragments and directives as the client wrote
 * them; the answers are put back under the client's aliases, and the remote's errors (paths are the
 * client's, aliases being kept) are returned next to `data`. The document sent is printed and
 * checked against the remote's schema once per compiled operation. With remote schema permissions,
 * the role's `@preset` values are added (see presets.ts). A customized remote (customizedNames.ts): what
 * the client wrote is checked against the role's part of the remote under the engine's names, then sent
 * in the remote's names, and the answer's `__typename`s renamed back; a root-field namespace field is
 * one request of its own, its selection sent as the operation's.
 */
import {
  Kind, buildClientSchema, print, typeFromAST, validate, type DocumentNode, type FieldNode, type GraphQLInputType, type GraphQLSchema,
  type OperationDefinitionNode, type SelectionNode, type SelectionSetNode,
} from 'graphql';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError, type Session } from '../core/index.js';
import type { NField, NormalizedOperation, OutputFieldMeta } from '../graphql/index.js';
import { customizedRemote, remoteAsSeen, remoteViewFor, type RemoteRoleView, type RemoteSchemaInfo, type SchemaCache } from '../metadata/index.js';
import { type PlanContext, type RootFieldPlan } from '../planner/index.js';
import { customizeAnswer, toRemoteNames } from './customizedNames.js';
import { usedFragments, usedVariables } from './documents.js';
import { addPresets, presetInVariable, presetValue, type PresetVariable } from './presets.js';
import { planTypeRels, type TypeRelJoin } from './typeRelPlan.js';
import { remoteRequestHeaders } from './remoteHeaders.js';
import { callRemote } from './remoteRequest.js';

/** The plan of one remote root field. */
export interface RemoteFieldPlan {
  remote: string;
  alias: string;
  nodes: FieldNode[];
  op: NormalizedOperation;
  /** The remote's root-field namespace field (customization): its selection is what the remote is asked. */
  namespace?: boolean;
  /**
   * The relationships of the remote's types to tables selected in it (typeRelPlan.ts): `nodes` are
   * then the client's with those fields replaced by their join fields.
   */
  typeRels?: TypeRelJoin[];
}

const clientSchemas = new WeakMap<RemoteSchemaInfo, GraphQLSchema>();

/** The remote's schema as graphql-js sees it (for validating what is sent). */
export function remoteClientSchema(remote: RemoteSchemaInfo): GraphQLSchema {
  let s = clientSchemas.get(remote);
  if (!s) clientSchemas.set(remote, (s = buildClientSchema(remote.introspection, { assumeValid: true })));
  return s;
}

/** Plans `ext:remote` root fields (delegated to a remote schema). */
export function planRemoteField(field: NField, meta: OutputFieldMeta, ctx: PlanContext, op: NormalizedOperation): RootFieldPlan {
  if (op.kind === 'subscription') throw new ApiError('not-supported', 'subscription to remote server is not supported');
  const m = meta as { remote?: unknown; namespace?: unknown };
  const plan: RemoteFieldPlan = { remote: String(m.remote), alias: field.alias, nodes: field.nodes, op, ...(m.namespace === true ? { namespace: true } : {}) };
  const rels = planTypeRels(field, ctx, op, ctx.cache.remoteSchemas?.get(plan.remote));
  if (rels) {
    plan.nodes = rels.nodes;
    plan.typeRels = rels.joins;
  }
  return { alias: field.alias, kind: 'ext:remote', plan };
}

/** The document one remote gets for `plans` (all of the same operation and remote). */
function remoteDocument(plans: readonly RemoteFieldPlan[]): { doc: DocumentNode; variables: string[] } {
  const op = plans[0].op;
  const nodes: SelectionNode[] = plans[0].namespace ? plans[0].nodes.flatMap((n) => n.selectionSet?.selections ?? []) : plans.flatMap((p) => p.nodes);
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
  const memoKey = `${groupKey(plans[0])}\u0000${view ? role : ''}`;
  let p = byRemote.get(memoKey);
  if (!p) {
    const schema = remoteClientSchema(remote);
    const built = remoteDocument(plans);
    // What the client asked is checked against the role's part of the remote, what is sent against the remote.
    const seen = view ? remoteAsSeen(remote, view) : remote;
    if (remote.customizer) {
      // ... the role's part under the engine's names, then translated to the remote's
      const engineNames = remoteClientSchema(customizedRemote(seen));
      const asked = validate(engineNames, built.doc);
      if (asked.length > 0) throw new ApiError('validation-failed', asked[0].message);
      built.doc = toRemoteNames(built.doc, engineNames, remote.customizer);
    }
    const asked = view && !remote.customizer ? validate(remoteClientSchema(seen), built.doc) : [];
    if (asked.length > 0) throw new ApiError('validation-failed', asked[0].message);
    const { doc, presets } = view ? addPresets(built.doc, schema, view) : { doc: built.doc, presets: [] };
    const problems = validate(schema, doc);
    if (problems.length > 0) throw new ApiError('validation-failed', problems[0].message);
    const presetInputs: PreparedRemote['presetInputs'] = [];
    if (view && view.inputPresets.size > 0) {
      // the variable definitions as sent (in the remote's type names)
      for (const d of (built.doc.definitions[0] as OperationDefinitionNode).variableDefinitions ?? []) {
        const type = typeFromAST(schema, d.type) as GraphQLInputType | undefined;
        if (type && built.variables.includes(d.variable.name.value)) presetInputs.push({ name: d.variable.name.value, type });
      }
    }
    p = { query: print(doc), variables: built.variables, presets, presetInputs };
    byRemote.set(memoKey, p);
  }
  return p;
}

/** The selections of a field's nodes (a response key the client wrote more than once) as one set. */
const mergedSelection = (nodes: readonly FieldNode[]): SelectionSetNode => ({ kind: Kind.SELECTION_SET, selections: nodes.flatMap((n) => n.selectionSet?.selections ?? []) });

/** Plans sent together: a remote's fields of one operation, or one namespace field alone. */
const groupKey = (p: RemoteFieldPlan): string => (p.namespace ? `${p.remote}\u0000${p.alias}` : p.remote);

const isPathed = (e: unknown): e is { path: unknown[] } => typeof e === 'object' && e !== null && Array.isArray((e as { path?: unknown }).path);

const fragmentMaps = new WeakMap<NormalizedOperation, Map<string, NormalizedOperation['fragments'][number]>>();
function fragmentsOf(p: RemoteFieldPlan): Map<string, NormalizedOperation['fragments'][number]> {
  let m = fragmentMaps.get(p.op);
  if (!m) fragmentMaps.set(p.op, (m = new Map(p.op.fragments.map((f) => [f.name.value, f]))));
  return m;
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
  for (const p of plans) groups.set(groupKey(p), [...(groups.get(groupKey(p)) ?? []), p]);
  const out = new Map<string, string>();
  await Promise.all([...groups].map(async ([, group]) => {
    const name = group[0].remote;
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
    const ns = group[0].namespace ? group[0].alias : undefined;
    if (answer.errors) {
      // Under a namespace, the remote's error paths start below the namespace field.
      errors.push(...(ns === undefined ? answer.errors : answer.errors.map((e) => (isPathed(e) ? { ...e, path: [ns, ...e.path] } : e))));
    }
    const cookie = answer.headers['set-cookie'];
    if (cookie !== undefined && responseHeaders) responseHeaders['set-cookie'] = cookie;
    const c = remote.customizer;
    if (ns !== undefined) {
      const data = answer.data ?? null;
      if (c) customizeAnswer(data, mergedSelection(group[0].nodes), fragmentsOf(group[0]), c);
      out.set(ns, JSON.stringify(data));
      return;
    }
    for (const p of group) {
      const value = answer.data?.[p.alias] ?? null;
      if (c) customizeAnswer(value, mergedSelection(p.nodes), fragmentsOf(p), c);
      out.set(p.alias, JSON.stringify(value));
    }
  }));
  return out;
}
