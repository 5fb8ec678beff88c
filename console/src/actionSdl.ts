/**
 * Actions as SDL, as Hasura's console writes them: the action is one field of `type Mutation` or
 * `type Query` (its arguments and output type), its custom types are `type` / `input` / `enum` /
 * `scalar` definitions. Parsed with graphql-js into the metadata's `definition` and `custom_types`
 * shapes, printed back for editing, and turned into a Node.js / Express handler skeleton.
 */
import { Kind, parse, print, type DefinitionNode, type FieldDefinitionNode, type InputValueDefinitionNode, type StringValueNode, type TypeNode } from 'graphql';

export interface ActionArgument { name: string; type: string; description?: string | null }
export interface ActionSignature { name: string; type: 'mutation' | 'query'; arguments: ActionArgument[]; output_type: string; description?: string }
export interface CustomField { name: string; type: string; description?: string | null }
export interface CustomRelationship { name: string; type: 'object' | 'array'; remote_table: { schema: string; name: string }; field_mapping: Record<string, string> }
export interface CustomTypes {
  scalars?: Array<{ name: string; description?: string | null }>;
  enums?: Array<{ name: string; description?: string | null; values: Array<{ value: string; description?: string | null }> }>;
  input_objects?: Array<{ name: string; description?: string | null; fields: CustomField[] }>;
  objects?: Array<{ name: string; description?: string | null; fields: CustomField[]; relationships?: CustomRelationship[] | null }>;
}
const KINDS = ['scalars', 'enums', 'input_objects', 'objects'] as const;

const typeText = (t: TypeNode): string => print(t);
const descOf = (d: StringValueNode | undefined) => (d ? { description: d.value } : {});
const fieldOf = (f: FieldDefinitionNode | InputValueDefinitionNode): CustomField => ({ name: f.name.value, type: typeText(f.type), ...descOf(f.description) });

/** `type Mutation { name(args): Out }` (or Query) → the action's signature; exactly one field. */
export function parseActionSdl(sdl: string): ActionSignature {
  const doc = parse(sdl);
  const roots = doc.definitions.filter((d): d is Extract<DefinitionNode, { kind: Kind.OBJECT_TYPE_DEFINITION | Kind.OBJECT_TYPE_EXTENSION }> =>
    (d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.OBJECT_TYPE_EXTENSION) && (d.name.value === 'Mutation' || d.name.value === 'Query'));
  if (roots.length !== 1 || doc.definitions.length !== 1) throw new Error('the action definition is one "type Mutation { … }" or "type Query { … }" (types go in the types editor)');
  const fields = roots[0].fields ?? [];
  if (fields.length !== 1) throw new Error(`type ${roots[0].name.value} must have exactly one field, the action`);
  const f = fields[0];
  return {
    name: f.name.value,
    type: roots[0].name.value === 'Query' ? 'query' : 'mutation',
    arguments: (f.arguments ?? []).map((a) => ({ name: a.name.value, type: typeText(a.type), ...descOf(a.description) })),
    output_type: typeText(f.type),
    ...(f.description ? { description: f.description.value } : {}),
  };
}

/** `type` / `input` / `enum` / `scalar` definitions → custom types (`type Mutation`/`Query` refused here). */
export function parseTypesSdl(sdl: string): CustomTypes {
  const out: Required<CustomTypes> = { scalars: [], enums: [], input_objects: [], objects: [] };
  if (sdl.trim() === '') return out;
  for (const d of parse(sdl).definitions) {
    switch (d.kind) {
      case Kind.OBJECT_TYPE_DEFINITION:
        if (d.name.value === 'Mutation' || d.name.value === 'Query') throw new Error(`type ${d.name.value} belongs in the action definition`);
        out.objects.push({ name: d.name.value, ...descOf(d.description), fields: (d.fields ?? []).map(fieldOf) });
        break;
      case Kind.INPUT_OBJECT_TYPE_DEFINITION:
        out.input_objects.push({ name: d.name.value, ...descOf(d.description), fields: (d.fields ?? []).map(fieldOf) });
        break;
      case Kind.ENUM_TYPE_DEFINITION:
        out.enums.push({ name: d.name.value, ...descOf(d.description), values: (d.values ?? []).map((v) => ({ value: v.name.value, ...descOf(v.description) })) });
        break;
      case Kind.SCALAR_TYPE_DEFINITION:
        out.scalars.push({ name: d.name.value, ...descOf(d.description) });
        break;
      default:
        throw new Error(`only type, input, enum and scalar definitions are custom types (found ${d.kind})`);
    }
  }
  return out;
}

/** The existing custom types with those of the SDL replacing the ones of the same name; an object keeps its relationships. */
export function mergeTypes(existing: CustomTypes, added: CustomTypes): CustomTypes {
  const out: CustomTypes = {};
  for (const k of KINDS) {
    const names = new Set((added[k] ?? []).map((t) => t.name));
    const kept = (existing[k] ?? []).filter((t) => !names.has(t.name));
    const next = (added[k] ?? []).map((t) => {
      if (k !== 'objects') return t;
      const old = (existing.objects ?? []).find((o) => o.name === t.name);
      return old?.relationships?.length ? { ...t, relationships: old.relationships } : t;
    });
    const all = [...kept, ...next];
    if (all.length) (out as Record<string, unknown>)[k] = all;
  }
  return out;
}

const block = (d: string | null | undefined, indent = '') => (d ? `${indent}"""${d}"""\n` : '');

export function actionToSdl(name: string, def: { type?: string; arguments?: ActionArgument[]; output_type: string }, comment?: string | null): string {
  const args = (def.arguments ?? []).map((a) => `${a.name}: ${a.type}`).join(', ');
  return `type ${def.type === 'query' ? 'Query' : 'Mutation'} {\n${block(comment, '  ')}  ${name}${args ? `(${args})` : ''}: ${def.output_type}\n}\n`;
}

const baseName = (t: string) => t.replace(/[[\]!\s]/g, '');

/** The custom types a signature reaches (through arguments, output and nested fields), as SDL. */
export function typesToSdl(types: CustomTypes, sig: { arguments?: ActionArgument[]; output_type: string }): string {
  const seen = new Set<string>();
  const queue = [sig.output_type, ...(sig.arguments ?? []).map((a) => a.type)].map(baseName);
  const parts: string[] = [];
  while (queue.length) {
    const n = queue.shift()!;
    if (seen.has(n)) continue;
    seen.add(n);
    const obj = types.objects?.find((o) => o.name === n) ?? types.input_objects?.find((o) => o.name === n);
    if (obj) {
      const kw = types.objects?.includes(obj as never) ? 'type' : 'input';
      parts.push(`${block(obj.description)}${kw} ${n} {\n${obj.fields.map((f) => `${block(f.description, '  ')}  ${f.name}: ${f.type}`).join('\n')}\n}\n`);
      queue.push(...obj.fields.map((f) => baseName(f.type)));
      continue;
    }
    const en = types.enums?.find((e) => e.name === n);
    if (en) parts.push(`${block(en.description)}enum ${n} {\n${en.values.map((v) => `  ${v.value}`).join('\n')}\n}\n`);
    const sc = types.scalars?.find((s) => s.name === n);
    if (sc) parts.push(`${block(sc.description)}scalar ${n}\n`);
  }
  return parts.join('\n');
}

const SAMPLE: Record<string, string> = { Int: '0', Float: '0.5', String: '"<value>"', Boolean: 'false', ID: '"<id>"' };

function sampleOf(type: string, types: CustomTypes, depth = 0): string {
  const list = type.trim().replace(/!$/, '').startsWith('[');
  const n = baseName(type);
  let v = SAMPLE[n];
  if (v === undefined) {
    const obj = types.objects?.find((o) => o.name === n);
    const en = types.enums?.find((e) => e.name === n);
    if (obj && depth < 3) v = `{ ${obj.fields.map((f) => `${f.name}: ${sampleOf(f.type, types, depth + 1)}`).join(', ')} }`;
    else if (en) v = JSON.stringify(en.values[0]?.value ?? '');
    else v = 'null';
  }
  return list ? `[${v}]` : v;
}

/** A Node.js (ESM) / Express handler skeleton for the action: reads `input` and answers the output type's shape. */
export function expressSkeleton(sig: ActionSignature, types: CustomTypes, handlerUrl: string): string {
  let path = `/${sig.name}`;
  try {
    if (/^https?:\/\//.test(handlerUrl)) path = new URL(handlerUrl).pathname || path;
  } catch {
    /* keep the action's name as the path */
  }
  const args = sig.arguments.map((a) => a.name);
  return `// ${sig.name}: the ${sig.type === 'query' ? 'query' : 'mutation'} action's handler (npm install express)
import express from 'express';

const app = express();
app.use(express.json());

app.post(${JSON.stringify(path)}, async (req, res) => {
  // The engine posts {action: {name}, input: {${args.join(', ')}}, session_variables, request_query}.
  const { ${args.length ? `${args.join(', ')}` : ''} } = req.body.input;
  const session = req.body.session_variables; // x-svc-role, x-svc-user-id, ...

  // Run the business logic here. To fail the action, answer 4xx with {message, extensions?}:
  //   return res.status(400).json({ message: 'why it failed' });

  // The answer has the shape of the output type ${sig.output_type}:
  return res.json(${sampleOf(sig.output_type, types)});
});

app.listen(Number(process.env.PORT ?? 3000));
`;
}
