/**
 * Hasura v2's naming conventions for the names generated from a Postgres source:
 * `hasura-default` (the names as Hasura v1.3 makes them: `author_by_pk`, `author_bool_exp`) and
 * `graphql-default` (camelCase fields and arguments, PascalCase types, upper-case enum values:
 * `authorByPk`, `AuthorBoolExp`, `ASC`). Chosen per source (`customization.naming_convention`)
 * or for the server (`--default-naming-convention`).
 */
export const NAMING_CONVENTIONS = ['hasura-default', 'graphql-default'] as const;
export type NamingConvention = (typeof NAMING_CONVENTIONS)[number];

export const isNamingConvention = (v: unknown): v is NamingConvention =>
  typeof v === 'string' && (NAMING_CONVENTIONS as readonly string[]).includes(v);

/** Hasura's message for any other value. */
export const NAMING_CONVENTION_ERROR = 'naming_convention can either be "hasura-default" or "graphql-default"';
