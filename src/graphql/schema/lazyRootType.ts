/**
 * A root object type whose fields are made one by one, when first read. `mutation_root` of a 5,000-table
 * schema has ~35,000 fields whose arguments name ~15 input, enum and response types per table: making
 * them all for a role's first mutation was most of a second and a half of CPU. Here `getFields()` lists
 * every field name at once (the map's keys) and makes a field (its type, its arguments and so the types
 * they name) when its entry is read: the validator reads the fields a mutation names; introspection and
 * `Object.values` read them all, and get what an eager `GraphQLObjectType` over the same configs gives.
 * `query_root` is one too (its configs made at once, as the types they name, but graphql-js's definition of
 * each field and its arguments made when the field is first read: a role's first query defines one field,
 * not ~15,000).
 *
 * `lazyFieldConfig(meta, make)` is a field config whose `type` and `args` come from `make()` on first
 * read, its `extensions` known at once (so `makeFieldsFor` can tell which table a field is of).
 */
import {
  GraphQLObjectType,
  type GraphQLField, type GraphQLFieldConfig, type GraphQLFieldConfigMap, type GraphQLFieldMap, type GraphQLObjectTypeConfig,
} from 'graphql';
import type { TurnBudget } from '../../lib/index.js';

/** A field config made on first read of its type or arguments; `extensions` and `description` are given at once. */
export function lazyFieldConfig(
  known: Pick<GraphQLFieldConfig<unknown, unknown>, 'extensions' | 'description'>, make: () => GraphQLFieldConfig<unknown, unknown>,
): GraphQLFieldConfig<unknown, unknown> {
  let made: GraphQLFieldConfig<unknown, unknown> | undefined;
  const get = () => (made ??= make());
  return {
    extensions: known.extensions,
    description: known.description,
    get type() { return get().type; },
    get args() { return get().args; },
    get deprecationReason() { return get().deprecationReason; },
  };
}

/** The table a root field is of (`extensions.svc.table.gqlName`), when it says. */
function tableNameOf(config: GraphQLFieldConfig<unknown, unknown>): string | undefined {
  const svc = (config.extensions as { svc?: { table?: { gqlName?: unknown } } } | null | undefined)?.svc;
  const name = svc?.table?.gqlName;
  return typeof name === 'string' ? name : undefined;
}

export class LazyRootType extends GraphQLObjectType {
  private configsOrThunk: GraphQLFieldConfigMap<unknown, unknown> | (() => GraphQLFieldConfigMap<unknown, unknown>);
  private map: GraphQLFieldMap<unknown, unknown> | undefined;

  /** `fields`: the field configs, or a thunk of them run on first use (`subscription_root`'s, listed only when asked for). */
  constructor(config: Omit<GraphQLObjectTypeConfig<unknown, unknown>, 'fields'> & {
    fields: GraphQLFieldConfigMap<unknown, unknown> | (() => GraphQLFieldConfigMap<unknown, unknown>);
  }) {
    super({ ...config, fields: {} });
    this.configsOrThunk = config.fields;
  }

  private get configs(): GraphQLFieldConfigMap<unknown, unknown> {
    if (typeof this.configsOrThunk === 'function') this.configsOrThunk = this.configsOrThunk();
    return this.configsOrThunk;
  }

  override getFields(): GraphQLFieldMap<unknown, unknown> {
    if (this.map) return this.map;
    // Each entry a getter over the fields made so far: redefining an entry as a value when made would cost
    // a pass over the whole map each time (V8 rewrites the object's shape), quadratic in the fields when all
    // are read (an introspection of a root of 35,000 fields). Once every field is made, getFields() gives a
    // plain map of them.
    const building = this.startMap();
    for (const [name, config] of Object.entries(this.configs)) building.define(name, config);
    return (this.map = building.map);
  }

  /**
   * `getFields()`'s map made a slice of fields per event-loop turn (35,000 getters at 5,000 tables are a
   * few hundred milliseconds in one turn); `getFields()` then answers at once.
   */
  async prepareFields(budget: TurnBudget): Promise<void> {
    if (this.map) return;
    const building = this.startMap();
    for (const [name, config] of Object.entries(this.configs)) {
      if (budget.due) await budget.next();
      if (this.map) return; // made at once meanwhile
      building.define(name, config);
    }
    this.map = building.map;
  }

  private startMap(): { map: GraphQLFieldMap<unknown, unknown>; define(name: string, config: GraphQLFieldConfig<unknown, unknown>): void } {
    const made = new Map<string, GraphQLField<unknown, unknown>>();
    const total = Object.keys(this.configs).length;
    const map: GraphQLFieldMap<unknown, unknown> = {};
    const define = (name: string, config: GraphQLFieldConfig<unknown, unknown>): void => {
      Object.defineProperty(map, name, {
        enumerable: true,
        configurable: false,
        get: () => {
          let field = made.get(name);
          if (!field) {
            made.set(name, (field = this.makeField(name, config)));
            if (made.size === total) this.map = Object.fromEntries(Object.keys(this.configs).map((n) => [n, made.get(n)!]));
          }
          return field;
        },
      });
    };
    return { map, define };
  }

  /** One field as graphql-js defines it from its config (through a one-field type of the same name). */
  private makeField(name: string, config: GraphQLFieldConfig<unknown, unknown>): GraphQLField<unknown, unknown> {
    return new GraphQLObjectType({ name: this.name, fields: { [name]: config } }).getFields()[name];
  }

  /**
   * Makes the fields of the tables whose GraphQL name `typeName` starts with (`<t>_insert_input` → the
   * fields of `<t>`), so a variable's type is found without making every field.
   */
  makeFieldsFor(typeName: string): void {
    const fields = this.getFields();
    for (const [name, config] of Object.entries(this.configs)) {
      const table = tableNameOf(config);
      if (table !== undefined && typeName.startsWith(`${table}_`)) void fields[name];
    }
  }
}
