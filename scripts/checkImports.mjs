#!/usr/bin/env node
/**
 * `node scripts/checkImports.mjs [src]`: checks the import rule of ARCHITECTURE.md over src/.
 *
 * Reads the chain from ARCHITECTURE.md's "Import rule" section (`a` · `b` → `c` → …: folders joined by
 * `·` share a rank and may not import each other; a folder imports only folders of earlier ranks),
 * then every relative `import … from` / `import '…'` / `export … from` / `import()` of every .ts file, type-only included, and
 * reports:
 *   - order: a file importing a folder that is not earlier in the chain;
 *   - deep: a file importing another folder's file other than its index.ts;
 *   - circle: files importing each other in a circle (strongly connected components);
 *   - unranked: a top-level folder or file of src/ that the chain does not name.
 * Prints one line per problem and `N problems`; exits 1 when there are any. tests/unit/architecture.test.ts
 * runs it, so `npm test` (and CI) fails when the code leaves its map.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Ranks from ARCHITECTURE.md: Map<folder or file stem, rank>. */
export function readChain(architectureMd) {
  const section = architectureMd.split(/^## Import rule\s*$/m)[1];
  if (!section) throw new Error('ARCHITECTURE.md has no "## Import rule" section');
  const text = section.split(/\n\s*\n/).find((p) => p.includes('→'));
  if (!text) throw new Error('ARCHITECTURE.md: no chain (`a` → `b` …) under "## Import rule"');
  // The chain ends at the first parenthesis (what follows explains it).
  const chain = text.split('(')[0];
  const ranks = new Map();
  chain.split('→').forEach((rank, i) => {
    for (const m of rank.matchAll(/`([A-Za-z]+)`/g)) ranks.set(m[1], i);
  });
  return ranks;
}

function listFiles(dir) {
  const out = [];
  (function walk(d) {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(n) && !/\.d\.ts$/.test(n)) out.push(p);
    }
  })(dir);
  return out.sort();
}

function resolveSpec(from, spec) {
  const base = resolve(dirname(from), spec);
  for (const c of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base, `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(c) && statSync(c).isFile()) return c;
  }
  return null;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|(?:^|\n)\s*import\s*['"](\.[^'"]+)['"]/g;

/** Problems of the tree under `srcDir` against the chain in `architectureMd` (module header). */
export function checkImports(srcDir, architectureMd) {
  const ranks = readChain(architectureMd);
  const files = listFiles(srcDir);
  const unitOf = (f) => relative(srcDir, f).split('/')[0].replace(/\.tsx?$/, '');
  const problems = [];
  const edges = new Map();
  for (const unit of new Set(files.map(unitOf))) {
    if (!ranks.has(unit)) problems.push(`unranked: src/${unit} is not in the chain of ARCHITECTURE.md`);
  }
  for (const f of files) {
    const from = unitOf(f);
    const out = new Set();
    for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) {
      const target = resolveSpec(f, m[1] ?? m[2] ?? m[3]);
      if (!target || !target.startsWith(srcDir)) continue;
      out.add(target);
      const to = unitOf(target);
      if (to === from) continue;
      const where = `src/${relative(srcDir, f)} imports src/${relative(srcDir, target)}`;
      if (ranks.has(from) && ranks.has(to) && !(ranks.get(to) < ranks.get(from))) {
        problems.push(`order: ${where} (${to} is not earlier than ${from} in the chain)`);
      }
      const isFolder = statSync(join(srcDir, to), { throwIfNoEntry: false })?.isDirectory();
      if (isFolder && relative(join(srcDir, to), target) !== 'index.ts') problems.push(`deep: ${where} (past ${to}/index.ts)`);
    }
    edges.set(f, out);
  }
  for (const scc of circles(edges)) problems.push(`circle: ${scc.map((f) => relative(srcDir, f)).join(', ')}`);
  return problems;
}

/** Tarjan's strongly connected components of more than one file (or a file importing itself). */
function circles(edges) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || edges.get(v)?.has(v)) found.push(scc.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const srcDir = resolve(root, process.argv[2] ?? 'src');
  const problems = checkImports(srcDir, readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8'));
  for (const p of problems) console.log(p);
  console.log(`${problems.length} problems`);
  process.exit(problems.length > 0 ? 1 : 0);
}
