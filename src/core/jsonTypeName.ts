/** aeson's name for a JSON value's type, as Hasura's "expected X, but encountered Y" messages print it. */
export function jsonTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'Null';
  if (Array.isArray(v)) return 'Array';
  switch (typeof v) {
    case 'string':
      return 'String';
    case 'number':
      return 'Number';
    case 'boolean':
      return 'Boolean';
    default:
      return 'Object';
  }
}
