/** GraphQL document functions of delegation and remote joins (remoteSchemas/documents.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kind, parse, print, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { inlineVariables, printLiteral, usedFragments, usedVariables } from '../../../src/remoteSchemas/documents.js';

const doc = parse(`
  query Q($a: Int, $b: String, $unused: Int) { x(a: $a) { ...F } }
  fragment F on T { y(b: $b) ...G }
  fragment G on T { z }
  fragment H on T { w }
`);
const op = doc.definitions[0] as OperationDefinitionNode;
const frags = doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);

test('fragments used transitively, variables used', () => {
  const used = usedFragments([op.selectionSet], frags);
  assert.deepEqual(used.map((f) => f.name.value), ['F', 'G']);
  assert.deepEqual([...usedVariables([op.selectionSet, ...used])].sort(), ['a', 'b']);
});

test('variables inlined as literals', () => {
  assert.equal(print(inlineVariables(op.selectionSet, { a: 3 })), '{\n  x(a: 3) {\n    ...F\n  }\n}');
});

test('typed literals: enums bare, one item coerced into a list, nested input objects', () => {
  const types = new Map<string, any>([
    ['Color', { kind: 'ENUM', name: 'Color', enumValues: [{ name: 'RED' }] }],
    ['In', { kind: 'INPUT_OBJECT', name: 'In', inputFields: [{ name: 'c', type: { kind: 'NAMED', name: 'Color' } }, { name: 's', type: { kind: 'SCALAR', name: 'String' } }] }],
  ]);
  const listOfColor = { kind: 'LIST', ofType: { kind: 'ENUM', name: 'Color' } } as any;
  assert.equal(printLiteral(['RED'], listOfColor, types), '[RED]');
  assert.equal(printLiteral('RED', listOfColor, types), 'RED');
  assert.equal(printLiteral({ c: 'RED', s: 'x"y' }, { kind: 'INPUT_OBJECT', name: 'In' } as any, types), '{c: RED, s: "x\\"y"}');
  assert.equal(printLiteral(null, undefined, types), 'null');
});
