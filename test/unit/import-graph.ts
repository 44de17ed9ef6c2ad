import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// Static `import … from` and `export … from` edges between our own files; `import type` counts too, because a
// type-only cycle is still two modules that cannot be understood (or moved) one without the other.
const IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s+'(\.{1,2}\/[^']+)'/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

export function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) => resolve(dirname(file), (m[1] ?? '').replace(/\.js$/, '.ts')));
    graph.set(relative(root, file), targets.map((t) => relative(root, t)));
  }
  return graph;
}

/** Each strongly connected component of more than one file (or a file importing itself), as sorted paths. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next); low.set(node, next); next += 1;
    stack.push(node); onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) { visit(to); low.set(node, Math.min(low.get(node)!, low.get(to)!)); }
      else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (;;) { const top = stack.pop()!; onStack.delete(top); component.push(top); if (top === node) break; }
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}
