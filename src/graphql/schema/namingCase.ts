/**
 * The case conversions of Hasura v2's `graphql-default` naming convention (its `Data.Text.Casing`):
 * a name is split on `_` (a leading `_` stays with the first word: `_is_null` → `_is`, `null`),
 * then camelCase lowers the first character of the first word and raises the first of every
 * other word (`insert_author_one` → `insertAuthorOne`, `_is_null` → `_isNull`); PascalCase raises
 * every word's first character (`author_bool_exp` → `AuthorBoolExp`). Enum values are upper-cased
 * whole (`asc_nulls_first` → `ASC_NULLS_FIRST`). A result that is not a GraphQL name leaves the
 * name unchanged, as Hasura does.
 */
import { isGraphqlName } from './names.js';

function words(name: string): string[] {
  const parts = name.split('_');
  if (parts.length > 1 && parts[0] === '') return [`_${parts[1]}`, ...parts.slice(2)];
  return parts;
}

const upperFirst = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);
const orSelf = (name: string, converted: string): string => (isGraphqlName(converted) ? converted : name);

/** `author_by_pk` → `authorByPk`. */
export function snakeToCamel(name: string): string {
  const [first, ...rest] = words(name);
  return orSelf(name, lowerFirst(first) + rest.map(upperFirst).join(''));
}

/** `author_bool_exp` → `AuthorBoolExp`. */
export function snakeToPascal(name: string): string {
  return orSelf(name, words(name).map(upperFirst).join(''));
}

/** `asc_nulls_first` → `ASC_NULLS_FIRST`. */
export const upperEnumValue = (name: string): string => orSelf(name, name.toUpperCase());

/** A user-given name followed by generated words, as Hasura joins them: `articles` + `_aggregate` → `articlesAggregate`. */
export const customThenCamel = (custom: string, suffix: string): string => orSelf(custom + suffix, custom + words(suffix.replace(/^_/, '')).map(upperFirst).join(''));

/**
 * A source's `root_fields` or `type_names` prefix and suffix around a name, as Hasura joins them: as given
 * under `hasura-default`; under `graphql-default` the name after a prefix and the suffix begin upper case
 * (`archive_` + `albumByPk` → `archive_AlbumByPk`, `AlbumBoolExp` + `_t` → `AlbumBoolExp_t`, `Old` + `Album` → `OldAlbum`).
 */
export function withPrefixSuffix(name: string, parts: { prefix?: string; suffix?: string } | undefined, graphqlCase: boolean): string {
  if (!parts || (parts.prefix === undefined && parts.suffix === undefined)) return name;
  if (!graphqlCase) return `${parts.prefix ?? ''}${name}${parts.suffix ?? ''}`;
  const head = parts.prefix !== undefined ? parts.prefix + upperFirst(name) : name;
  return head + (parts.suffix !== undefined ? upperFirst(parts.suffix) : '');
}
