/**
 * A role's graphql-js schema whose types are completed on first use. `new GraphQLSchema` walks every
 * type reachable from the roots to fill its type map, and so runs every field thunk: for 5,000 tables
 * that is the whole schema (hundreds of thousands of fields and arguments) before the first query of a
 * role can be validated. A `LazySchema` has its root types at once and the rest only as they are
 * reached: the request validator asks an object type for its fields (graphql-js runs that type's thunk
 * then), and `getType(name)` answers from the build's registry of the types made so far
 * (`SchemaContext.named`). Whatever needs the whole schema (`getTypeMap`: introspection of `__schema`,
 * `getPossibleTypes` of an interface, a name not made yet, `toConfig`) completes it first, so the completed
 * schema has the types, fields and arguments `new GraphQLSchema` over the same roots has. The mutation
 * root itself is made on first use (`getMutationType`): a query never makes the mutation fields.
 */
import {
  GraphQLSchema,
  type GraphQLAbstractType, type GraphQLInterfaceType, type GraphQLNamedType, type GraphQLObjectType, type GraphQLSchemaConfig,
} from 'graphql';
import { LazyRootType } from './lazyRootType.js';
import { TurnBudget } from '../../lib/index.js';
import { releasingFields, schemaTypeOrder, type IntrospectionSchema, type TypeOrderConfig } from './schemaTypeOrder.js';

/** The build's registry of named types, by name (the types made so far); rebound when a later cache keeps the schema. */
export interface TypeRegistry {
  named(name: string): GraphQLNamedType | undefined;
}

/** graphql-js's private state of a schema, filled here from a complete build. */
interface SchemaState {
  _typeMap: Record<string, GraphQLNamedType>;
  _subTypeMap: Record<string, unknown>;
  _implementationsMap: Record<string, unknown>;
  _queryType: GraphQLObjectType | null | undefined;
  _mutationType: GraphQLObjectType | null | undefined;
  _subscriptionType: GraphQLObjectType | null | undefined;
}

/**
 * What a `LazySchema` is made of: `new GraphQLSchema`'s config, except that the mutation root is made on
 * first use (`mutation()`: its fields are every table's mutation fields, and whether there is one at all
 * is known only once they are made), and `types()` lists the registry's types once the roots are made.
 */
export interface LazySchemaConfig extends Omit<GraphQLSchemaConfig, 'mutation' | 'types'> {
  mutation: () => GraphQLObjectType | null;
  /** Makes what `mutation()` will need a slice per event-loop turn, so that `mutation()` itself is short. */
  prepareMutation?: (budget: TurnBudget) => Promise<void>;
  types: () => GraphQLNamedType[];
  /**
   * A new build of the same schema (from the cache the remaining types are made from), none of its types
   * made beyond its roots: what introspection of `__schema` walks instead of completing this one.
   */
  fresh?: () => Promise<LazySchema>;
}

export class LazySchema extends GraphQLSchema {
  private pending: { config: LazySchemaConfig; registry: TypeRegistry } | null;
  private mutationMade = false;

  constructor(config: LazySchemaConfig, registry: TypeRegistry) {
    // Only the directives' argument types and the introspection types are collected here.
    super({ directives: config.directives, assumeValid: true, description: config.description });
    const state = this as unknown as SchemaState;
    state._queryType = config.query;
    state._subscriptionType = config.subscription;
    this.pending = { config, registry };
  }

  override getMutationType(): GraphQLObjectType | null | undefined {
    if (!this.mutationMade && this.pending) {
      (this as unknown as SchemaState)._mutationType = this.pending.config.mutation();
      this.mutationMade = true;
    }
    return super.getMutationType();
  }

  /** Whether the mutation root is still to be made (its first use lists every table's mutation fields). */
  get mutationPending(): boolean {
    return !this.mutationMade && this.pending !== null;
  }

  /**
   * Makes the mutation root a slice per event-loop turn (its fields' names and the permission checks behind
   * them; the fields themselves are made when a request names them), so that a role's first mutation does
   * not hold other clients up for the whole of it. `getMutationType()` then answers at once.
   */
  async prepareMutation(): Promise<void> {
    const prepare = this.pending?.config.prepareMutation;
    if (this.mutationMade || prepare === undefined) return;
    await prepare(new TurnBudget());
    this.getMutationType();
  }

  /** Whether every type has been collected (introspection of `__schema` and interfaces complete it). */
  get complete(): boolean {
    return this.pending === null;
  }

  /** The registry the remaining types are made from, while some are not made yet. */
  get registry(): TypeRegistry | undefined {
    return this.pending?.registry;
  }

  /**
   * What introspection reads: this schema when it is complete; otherwise a new build of it (`fresh`),
   * whose types are made as the introspection walk reaches them (`schemaTypeOrder`: `getTypeMap()`'s
   * order) and dropped with the answer, so introspecting a role does not keep its whole schema made; each
   * type's fields are let go once the walk is past it (`releasingFields`), so they die young.
   */
  async forIntrospection(): Promise<IntrospectionSchema> {
    const fresh = this.pending?.config.fresh;
    if (!fresh) return { schema: this, types: () => Object.values(this.getTypeMap()) };
    const copy = await fresh();
    // The copy is dropped with the answer: each type's fields are let go once written (`releasingFields`).
    return { schema: copy, types: () => (copy.complete ? Object.values(copy.getTypeMap()) : releasingFields(schemaTypeOrder(copy.orderConfig()))) };
  }

  /** `new GraphQLSchema`'s config of the complete schema (the mutation root made, the registry's types listed). */
  private orderConfig(): TypeOrderConfig {
    const { config } = this.pending!;
    const mutation = this.getMutationType();
    this.listed ??= config.types();
    return { types: this.listed, query: config.query, mutation, subscription: config.subscription, directives: this.getDirectives() };
  }

  /**
   * The types listed when the walk's order was fixed: a completion after it (an interface's possible types)
   * starts from the same list, so what was made since (the root fields, made in slices) does not move.
   */
  private listed: GraphQLNamedType[] | undefined;

  /** Collects every type, as `new GraphQLSchema` would (running every remaining field thunk). */
  completeTypes(): void {
    if (!this.pending) return;
    const { config } = this.pending;
    const mutation = this.getMutationType();
    const full = new GraphQLSchema({ ...config, mutation, types: this.listed ?? config.types() }) as unknown as SchemaState;
    const state = this as unknown as SchemaState;
    state._typeMap = full._typeMap;
    state._implementationsMap = full._implementationsMap;
    state._subTypeMap = Object.create(null) as Record<string, unknown>;
    this.pending = null;
  }

  override getType(name: string): GraphQLNamedType | undefined {
    if (this.pending) {
      // graphql-js's getType reads getTypeMap(): the collected types (built-in scalars of the directives,
      // introspection types) are read directly.
      const have = this.pending.registry.named(name) ?? (this as unknown as SchemaState)._typeMap[name];
      if (have) return have;
      // The roots are not in the registry (`__type(name: "query_root")`).
      const { query, subscription } = this.pending.config;
      if (query?.name === name) return query;
      if (subscription?.name === name) return subscription;
      // A type of the mutation or subscription root's arguments (a variable's `<t>_insert_input`,
      // `<t>_stream_cursor_input`): made with those roots' fields, before anything completes.
      const mutation = this.getMutationType();
      if (mutation?.name === name) return mutation;
      if (mutation instanceof LazyRootType) mutation.makeFieldsFor(name);
      this.getSubscriptionType()?.getFields();
      const rooted = this.pending.registry.named(name);
      if (rooted) return rooted;
      this.completeTypes();
    }
    return super.getType(name);
  }

  override getTypeMap(): ReturnType<GraphQLSchema['getTypeMap']> {
    this.completeTypes();
    return super.getTypeMap();
  }

  override getPossibleTypes(abstractType: GraphQLAbstractType): ReadonlyArray<GraphQLObjectType> {
    this.completeTypes();
    return super.getPossibleTypes(abstractType);
  }

  override getImplementations(interfaceType: GraphQLInterfaceType): { objects: ReadonlyArray<GraphQLObjectType>; interfaces: ReadonlyArray<GraphQLInterfaceType> } {
    this.completeTypes();
    return super.getImplementations(interfaceType);
  }

  override isSubType(abstractType: GraphQLAbstractType, maybeSubType: GraphQLObjectType | GraphQLInterfaceType): boolean {
    this.completeTypes();
    return super.isSubType(abstractType, maybeSubType);
  }

  override toConfig(): ReturnType<GraphQLSchema['toConfig']> {
    this.completeTypes();
    return super.toConfig();
  }
}
