/**
 * The file-level import graph of src/, read from the TypeScript sources with a real parser
 * (rolldown's, as test/package/bundles.test.ts uses): every `import`, `export ... from` and
 * `import('...')` with a relative specifier. test/core/layers.test.ts holds the layers to it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { parseAst } from 'rolldown/parseAst';

export interface ImportEdge {
  /** Importing file, relative to the root, `/`-separated (`server/server.ts`). */
  from: string;
  /** Imported file, the same way. */
  to: string;
  /** `import type` / `export type`: erased by the compiler, no edge at run time. */
  typeOnly: boolean;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Node {
  type?: string;
  importKind?: string;
  exportKind?: string;
  source?: { value?: unknown } | null;
}

/** Every relative import between the files under `root`. */
export function importGraph(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sources(root)) {
    const from = relative(root, file).split('\\').join('/');
    const add = (specifier: unknown, typeOnly: boolean) => {
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const to = posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.js$/, '.ts');
      edges.push({ from, to, typeOnly });
    };
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) {
        for (const child of node) visit(child);
        return;
      }
      if (node === null || typeof node !== 'object') return;
      const n = node as Node;
      switch (n.type) {
        case 'ImportDeclaration':
          add(n.source?.value, n.importKind === 'type');
          return;
        case 'ExportNamedDeclaration':
        case 'ExportAllDeclaration':
          if (n.source) add(n.source.value, n.exportKind === 'type');
          break;
        case 'ImportExpression':
          add(n.source && 'value' in n.source ? n.source.value : undefined, false);
          break;
      }
      for (const value of Object.values(node)) if (value !== null && typeof value === 'object') visit(value);
    };
    visit(parseAst(readFileSync(file, 'utf8'), { lang: 'ts' }, file).body);
  }
  return edges;
}

/**
 * The import cycles: strongly connected components of more than one file (Tarjan), over the edges
 * `keep` selects.
 */
export function importCycles(edges: readonly ImportEdge[], keep: (edge: ImportEdge) => boolean): string[][] {
  const next = new Map<string, Set<string>>();
  for (const edge of edges) {
    if (!keep(edge)) continue;
    const targets = next.get(edge.from) ?? new Set<string>();
    next.set(edge.from, targets);
    targets.add(edge.to);
  }
  let counter = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    order.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!order.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, order.get(target) as number));
      }
    }
    if (low.get(node) !== order.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of next.keys()) if (!order.has(node)) visit(node);
  return found;
}
