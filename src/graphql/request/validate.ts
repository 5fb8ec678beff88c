/**
 * Request validation in Hasura v1.3's order: parse the query text, pick the operation
 * (`operationName` rules), find its root (`no mutations exist`...), check variable declarations
 * and values, check fragment definitions, then walk the selection set.
 *
 * Split in two so the document-level part can be cached: `prepareOperation` depends only on
 * (schema, query text, operationName); `normalizeOperation` also on the variable values.
 */
import { GraphQLError, Kind, isInterfaceType, isObjectType, isUnionType, parse, type DocumentNode, type FragmentDefinitionNode, type GraphQLObjectType, type OperationDefinitionNode } from 'graphql';
import type { RoleSchema } from '../schema/roleSchema.js';
import { duplicates, showName, showNames, showNamedTy, vf } from './messages.js';
import { measureOperation } from './documentCost.js';
import { checkOperationCost, HARD_BOUNDS, type RoleLimits } from './operationLimits.js';
import { walkSelectionSet } from './selectionSet.js';
import { cachedSpecOf, type CachedSpec } from './cachedDirective.js';
import type { DeclaredVariable, NormalizedOperation, OperationKind } from './types.js';
import { coerceVariables, declaredVariables, type CoercedVariables } from './variables.js';

/** One GraphQL request as sent in the HTTP body. */
export interface GraphqlRequest {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  /** The client's HTTP headers (set by the HTTP handler; remote schemas may forward them). */
  clientHeaders?: Record<string, string | string[] | undefined>;
}

export interface PreparedOperation {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  fragments: FragmentDefinitionNode[];
  kind: OperationKind;
  rootType: GraphQLObjectType;
  declared: DeclaredVariable[];
  /** The operation's `@cached` (queries only). */
  cached?: CachedSpec;
}

/** graphql-js 16 says "more that N tokens" (sic); accept both spellings. */
const TOO_MANY_TOKENS = /Document contains more tha[nt] \d+ tokens/;

/**
 * Parses the query text; a syntax error is Hasura's `not a valid graphql query` at `$.query`.
 * Parsing stops after `HARD_BOUNDS.tokens` tokens, with an error that says so.
 */
export function parseQuery(query: string): DocumentNode {
  try {
    return parse(query, { maxTokens: HARD_BOUNDS.tokens });
  } catch (e) {
    if (e instanceof GraphQLError) {
      if (TOO_MANY_TOKENS.test(e.message)) throw vf(`the query is too large: it has more than ${HARD_BOUNDS.tokens} tokens`, '$.query');
      throw vf('not a valid graphql query', '$.query');
    }
    throw e;
  }
}

/** Hasura's `getTypedOp`: which operation of the document runs. */
export function selectOperation(doc: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode {
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const isShorthand = (op: OperationDefinitionNode) => op.loc !== undefined && op.loc.startToken.kind === '{';
  const anonymous = ops.filter(isShorthand);
  const typed = ops.filter((op) => !isShorthand(op));
  if (operationName !== null && operationName !== undefined && operationName !== '') {
    if (anonymous.length > 0) throw vf('operationName cannot be used when an anonymous operation exists in the document', '$');
    const op = typed.find((o) => o.name?.value === operationName);
    if (!op) throw vf(`no such operation found in the document: ${showName(operationName)}`, '$');
    return op;
  }
  if (anonymous.length === 1 && typed.length === 0) return anonymous[0];
  if (anonymous.length === 0 && typed.length === 1) return typed[0];
  throw vf('exactly one operation has to be present in the document when operationName is not specified', '$');
}

/**
 * The document-level checks: operation, root type, what the operation costs once its fragments are
 * expanded (hard bounds and the role's `limits`, measured without expanding: see documentCost.ts),
 * variable declarations, fragment definitions.
 */
export function prepareOperation(
  rs: RoleSchema, doc: DocumentNode, operationName: string | null | undefined, limits?: RoleLimits,
): PreparedOperation {
  const operation = selectOperation(doc, operationName);
  const kind = operation.operation as OperationKind;
  let rootType: GraphQLObjectType;
  if (kind === 'query') rootType = rs.queryRoot;
  else if (kind === 'mutation') {
    if (!rs.mutationRoot) throw vf('no mutations exist', '$');
    rootType = rs.mutationRoot;
  } else {
    if (!rs.subscriptionRoot) throw vf('no subscriptions exist', '$');
    rootType = rs.subscriptionRoot;
  }
  const fragments = doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  checkOperationCost(measureOperation(operation, fragments), limits);
  const declared = declaredVariables(rs.schema, operation.variableDefinitions ?? []);
  const prepared: PreparedOperation = { document: doc, operation, fragments, kind, rootType, declared };
  if (operation.directives && operation.directives.length > 0) {
    const cached = cachedSpecOf(operation);
    if (cached) prepared.cached = cached;
  }
  return prepared;
}

/** Checks the fragment definitions (duplicates, directives, type conditions). */
function checkFragments(rs: RoleSchema, fragments: FragmentDefinitionNode[]): Map<string, FragmentDefinitionNode> {
  const dups = duplicates(fragments.map((f) => f.name.value));
  if (dups.length > 0) throw vf(`the following fragments are defined more than once: ${showNames(dups)}`, '$');
  for (const f of fragments) {
    if (f.directives && f.directives.length > 0) throw vf('unexpected directives at fragment definition', '$');
    const t = rs.schema.getType(f.typeCondition.name.value);
    if (!t) throw vf(`no such type exists in the schema: ${showNamedTy(f.typeCondition.name.value)}`, '$');
    if (!isObjectType(t) && !isInterfaceType(t) && !isUnionType(t)) {
      throw vf('fragments can only be defined on object/interface/union types', '$');
    }
  }
  return new Map(fragments.map((f) => [f.name.value, f]));
}

/** Variables only (run for every request, also on plan-cache hits). */
export function checkVariables(prepared: PreparedOperation, variables: Record<string, unknown> | null | undefined): CoercedVariables {
  return coerceVariables(prepared.declared, prepared.operation.variableDefinitions ?? [], variables);
}

/** Full validation of the prepared operation with these variables. */
export function normalizeOperation(rs: RoleSchema, prepared: PreparedOperation, coerced: CoercedVariables): NormalizedOperation {
  const fragments = checkFragments(rs, prepared.fragments);
  const fields = walkSelectionSet(
    { schema: rs.schema, queryRoot: rs.queryRoot, introspection: introspectionAllowed(rs), vars: coerced.infos, fragments, budget: { left: HARD_BOUNDS.work } },
    prepared.rootType, prepared.operation.selectionSet, '$', [],
  );
  if (prepared.kind === 'subscription' && fields.length !== 1) {
    throw vf('subscription must select only one top level field', '$');
  }
  return {
    kind: prepared.kind,
    rootType: prepared.rootType,
    fields,
    document: prepared.document,
    operation: prepared.operation,
    fragments: prepared.fragments,
    declared: prepared.declared,
    variables: coerced.values,
  };
}

/** Parse + validate in one go (tests, explain). */
export function validateRequest(rs: RoleSchema, req: GraphqlRequest, limits?: RoleLimits): NormalizedOperation {
  const prepared = prepareOperation(rs, parseQuery(req.query), req.operationName, limits);
  return normalizeOperation(rs, prepared, checkVariables(prepared, req.variables));
}

/** Whether the role may introspect: not listed in `graphql_schema_introspection.disabled_for_roles`. */
function introspectionAllowed(rs: RoleSchema): boolean {
  const disabled = rs.cache.metadata.graphql_schema_introspection?.disabled_for_roles;
  return disabled === undefined || !disabled.includes(rs.role);
}
