/**
 * The checks of a remote's introspection (remoteSchemas/validateIntrospection.ts), on introspections
 * of real graphql-js schemas corrupted the way the conformance fixtures corrupt them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSchema, introspectionFromSchema, type IntrospectionQuery } from 'graphql';
import { introspectionError } from '../../../src/remoteSchemas/index.js';

const SDL = `
  interface Character { id: ID! name: String! }
  type Human implements Character { id: ID! name: String! homePlanet: String }
  type Droid implements Character { id: ID! name: String! primaryFunction: String }
  union Search = Human | Droid
  type Query { hero(episode: Int!): Character search(q: Int!): Search }
`;

const intro = (): IntrospectionQuery => JSON.parse(JSON.stringify(introspectionFromSchema(buildSchema(SDL))));
const type = (i: IntrospectionQuery, name: string) => i.__schema.types.find((t) => t.name === name) as any;

test('a valid schema passes', () => {
  assert.equal(introspectionError(intro()), null);
});

test('interface problems, with Hasura\'s messages', () => {
  let i = intro();
  type(i, 'Character').fields = [];
  assert.equal(introspectionError(i), "List of fields cannot be empty for interface 'Character'");

  i = intro();
  type(i, 'Droid').interfaces = [{ kind: 'INTERFACE', name: 'UnknownIFace' }];
  assert.equal(introspectionError(i), "Could not find interface 'UnknownIFace' implemented by Object type 'Droid'");

  i = intro();
  type(i, 'Droid').fields.find((f: any) => f.name === 'id').type = { kind: 'NON_NULL', name: null, ofType: { kind: 'SCALAR', name: 'String', ofType: null } };
  assert.equal(introspectionError(i), 'The type of Object field \'Droid\'."id" (String!) is not the same type/sub type of Interface field \'Character\'."id" (ID!)');

  i = intro();
  type(i, 'Character').fields[0].args = [{ name: 'ifaceArg', description: null, type: { kind: 'NON_NULL', name: null, ofType: { kind: 'SCALAR', name: 'Int', ofType: null } }, defaultValue: null }];
  assert.equal(introspectionError(i), 'Interface field argument \'Character\'."id"("ifaceArg":) required, but Object field \'Droid\'."id" does not provide it');

  i = intro();
  type(i, 'Droid').fields[0].args = [{ name: 'extraArg', description: null, type: { kind: 'NON_NULL', name: null, ofType: { kind: 'SCALAR', name: 'Int', ofType: null } }, defaultValue: null }];
  assert.equal(introspectionError(i), 'Object field argument \'Droid\'."id"("extraArg":) is of required type Int!, but is not provided by Interface field \'Character\'."id"');

  // An implementation's argument must have the interface argument's exact type (not a sub type).
  i = intro();
  const intArg = (nonNull: boolean) => {
    const named = { kind: 'SCALAR', name: 'Int', ofType: null };
    return { name: 'first', description: null, type: nonNull ? { kind: 'NON_NULL', name: null, ofType: named } : named, defaultValue: null };
  };
  type(i, 'Character').fields[1].args = [intArg(false)];
  type(i, 'Human').fields[1].args = [intArg(false)];
  type(i, 'Droid').fields[1].args = [intArg(true)];
  assert.equal(introspectionError(i), 'Interface field argument \'Character\'."name"("first":) expects type Int, but \'Droid\'."name"("first":) has type Int!');

  i = intro();
  type(i, 'Droid').fields = [];
  assert.equal(introspectionError(i), "List of fields cannot be empty for Object type 'Droid'");
});

test('union problems, with Hasura\'s messages', () => {
  let i = intro();
  type(i, 'Search').possibleTypes = [];
  assert.equal(introspectionError(i), "List of member types cannot be empty for union type 'Search'");

  i = intro();
  type(i, 'Search').possibleTypes = [{ kind: 'OBJECT', name: 'Unknown0' }];
  assert.equal(introspectionError(i), "Could not find type 'Unknown0', which is defined as a member type of Union 'Search'");

  i = intro();
  type(i, 'Search').possibleTypes = [{ kind: 'INTERFACE', name: 'Character' }];
  assert.equal(introspectionError(i), "Union type 'Search' can only include object types. It cannot include 'Character'");

  i = intro();
  const at = i.__schema.types.findIndex((t) => t.name === 'Search');
  type(i, 'Search').possibleTypes = [{ kind: 'NON_NULL', name: null, ofType: { kind: 'OBJECT', name: 'Human' } }];
  assert.equal(introspectionError(i), `Error in $.types[${at}].possibleTypes[0].name: parsing Text failed, expected String, but encountered Null`);
});
