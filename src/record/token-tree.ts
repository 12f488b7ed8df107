import type { BudgetRecord } from './record-schema.js';
import { formatCount as fmt } from '../util/format.js';
import { displayWidth, padEndDisplay, padStartDisplay } from '../util/text-width.js';

/** One folder (or file) of the token tree: what the run gave the agent against what it considered. */
export interface TokenTreeNode {
  /** Name within its parent; '.' for the root. */
  name: string;
  /** Tokens the included files cost in the budget (the record's numbers). */
  includedTokens: number;
  /** Tokens of the whole content of the candidates below that the context left out. */
  leftOutTokens: number;
  includedFiles: number;
  consideredFiles: number;
  /** Sub-folders first, then files; each sorted by name. Empty for a file. */
  children: TokenTreeNode[];
  isFile: boolean;
}

/**
 * Tokens per folder of what a run included and what it left out, like repomix's
 * `--token-count-tree`: included from the record (each file's block at the level it got, what the
 * budget paid), left out from the whole contents of the candidates not in the context. Pure.
 */
export function buildTokenTree(record: BudgetRecord, candidates: ReadonlyArray<{ path: string; tokens: number }>): TokenTreeNode {
  const included = new Map<string, number>();
  for (const tier of ['primary', 'supporting', 'reference'] as const) for (const f of record.allocation[tier].files) included.set(f.path, f.tokens);
  const root = node('.', false);
  const seen = new Set<string>();
  const add = (path: string, considered: number) => {
    seen.add(path);
    const parts = path.split('/');
    const tokens = included.get(path);
    let at = root;
    const bump = (n: TokenTreeNode) => {
      n.consideredFiles++;
      if (tokens === undefined) n.leftOutTokens += considered;
      else {
        n.includedTokens += tokens;
        n.includedFiles++;
      }
    };
    bump(at);
    parts.forEach((part, i) => {
      const isFile = i === parts.length - 1;
      let child = at.children.find((c) => c.name === part && c.isFile === isFile);
      if (!child) {
        child = node(part, isFile);
        at.children.push(child);
      }
      bump(child);
      at = child;
    });
  };
  for (const c of candidates) add(c.path, c.tokens);
  // An included file the candidates do not list (a caller passing a subset) still counts.
  for (const [path, tokens] of included) if (!seen.has(path)) add(path, tokens);
  sortTree(root);
  return root;
}

/** The tree as aligned text: `name  included  left out  files in/considered`, folders only unless `files`. */
export function renderTokenTree(tree: TokenTreeNode, options: { files?: boolean } = {}): string {
  const rows: Array<[string, string, string, string]> = [];
  const walk = (n: TokenTreeNode, prefix: string, childPrefix: string) => {
    rows.push([`${prefix}${n.name}${n.isFile ? '' : n.name === '.' ? '' : '/'}`, fmt(n.includedTokens), fmt(n.leftOutTokens), `${n.includedFiles}/${n.consideredFiles}`]);
    const shown = n.children.filter((c) => options.files === true || !c.isFile);
    shown.forEach((c, i) => {
      const last = i === shown.length - 1;
      walk(c, `${childPrefix}${last ? '└── ' : '├── '}`, `${childPrefix}${last ? '    ' : '│   '}`);
    });
  };
  walk(tree, '', '');
  const header: [string, string, string, string] = ['Folder', 'Included', 'Left out', 'Files'];
  const widths = header.map((h, col) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[col]!))));
  const line = (r: string[]) =>
    `  ${padEndDisplay(r[0]!, widths[0]!)}  ${padStartDisplay(r[1]!, widths[1]!)}  ${padStartDisplay(r[2]!, widths[2]!)}  ${padStartDisplay(r[3]!, widths[3]!)}`;
  return [
    'TOKEN TREE (tokens per folder: included = what the context holds, left out = whole content of the candidates not in it; files included/considered):',
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    '',
  ].join('\n');
}

function node(name: string, isFile: boolean): TokenTreeNode {
  return { name, includedTokens: 0, leftOutTokens: 0, includedFiles: 0, consideredFiles: 0, children: [], isFile };
}

function sortTree(n: TokenTreeNode): void {
  n.children.sort((a, b) => Number(a.isFile) - Number(b.isFile) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const c of n.children) sortTree(c);
}
