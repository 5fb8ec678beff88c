/**
 * The validated, normalised form of an operation that the planner consumes: root fields with
 * their aliases, arguments already checked against the schema (values keep a reference to the
 * GraphQL variable they came from), and selection sets with fragments inlined, `@skip` /
 * `@include` applied and same-alias fields merged, as Hasura v1.3 does.
 */
import type {
  DocumentNode, FieldNode, FragmentDefinitionNode, GraphQLEnumType, GraphQLField, GraphQLInputObjectType, GraphQLInputType,
  GraphQLObjectType, GraphQLScalarType, OperationDefinitionNode,
} from 'graphql';

/** Where a value sits inside the request's variables: `variables[name]` then `path`. */
export interface VarRef {
  name: string;
  path: Array<string | number>;
}

/** A validated input value. `variable` is set when the value came out of a GraphQL variable. */
export type AnnValue =
  | { kind: 'null'; variable?: VarRef }
  | { kind: 'scalar'; type: GraphQLScalarType; value: unknown; variable?: VarRef }
  /** `value` is the enum value's internal value (a column name for `_select_column`), `name` its GraphQL name. */
  | { kind: 'enum'; type: GraphQLEnumType; name: string; value: unknown; variable?: VarRef }
  | { kind: 'list'; items: AnnValue[]; variable?: VarRef }
  | { kind: 'object'; type: GraphQLInputObjectType; fields: Array<[string, AnnValue]>; variable?: VarRef };

export interface NField {
  /** Response key. */
  alias: string;
  name: string;
  def: GraphQLField<unknown, unknown>;
  parentType: GraphQLObjectType;
  /** Arguments given (in query order), validated. */
  args: Map<string, AnnValue>;
  /** Sub-selection (merged), or null for leaf fields. */
  selection: NField[] | null;
  /** Hasura-style JSON path of the field: `$.selectionSet.author.selectionSet.articles`. */
  path: string;
  /** The AST nodes merged into this field (introspection fields are executed from them). */
  nodes: FieldNode[];
  /** On a field of interface type (the Relay `node`): the selection per possible object type. */
  byType?: ReadonlyMap<string, NField[]>;
  /** On a remote root field: the relationships of the remote's types to tables in its selection. */
  remoteTypeRels?: readonly RemoteTypeRelNode[];
}

/** A relationship field of a remote type (`node` as the client wrote it), walked as a field; null when skipped. */
export interface RemoteTypeRelNode {
  node: FieldNode;
  field: NField | null;
}

export type OperationKind = 'query' | 'mutation' | 'subscription';

export interface DeclaredVariable {
  name: string;
  type: GraphQLInputType;
}

export interface NormalizedOperation {
  kind: OperationKind;
  rootType: GraphQLObjectType;
  fields: NField[];
  document: DocumentNode;
  operation: OperationDefinitionNode;
  fragments: FragmentDefinitionNode[];
  /** Declared variables, in declaration order. */
  declared: DeclaredVariable[];
  /** Variable values after defaults and null-filling (what parameters are read from). */
  variables: Record<string, unknown>;
}
