import { extname, basename } from 'node:path';
import { languageForContent, languageForPath, type LanguageSpec } from '../languages/index.js';
import type { SyntaxEngine } from '../syntax/engine.js';
import { dataFormatOf, outlineData } from './data.js';
import { outlineLines } from './fallback.js';
import { isMarkdownPath, outlineMarkdown } from './markdown.js';
import type { OutlineItem } from './types.js';

export type { OutlineItem } from './types.js';

/** What the levels are built from: the file's outline and how to label it. */
export interface FileAnalysis {
  /** Human file type for stubs and summaries, e.g. `TypeScript`, `Markdown`, `JSON`. */
  fileType: string;
  family: 'code' | 'markdown' | 'data' | 'text';
  /** Prefix of marker lines added to the outline. */
  commentPrefix: string;
  items: OutlineItem[];
  language?: LanguageSpec;
}

export interface OutlinerEnv {
  syntax: SyntaxEngine;
}

/** An outliner returns null when it does not apply to the file or cannot parse it. */
export interface Outliner {
  readonly id: string;
  analyze(path: string, content: string, env: OutlinerEnv): Promise<FileAnalysis | null>;
}

const syntaxOutliner: Outliner = {
  id: 'tree-sitter',
  async analyze(path, content, env) {
    const language = languageForContent(path, content);
    if (!language) return null;
    const items = await env.syntax.outline(language, content);
    return items && { fileType: language.fileType, family: 'code', commentPrefix: language.commentPrefix, items, language };
  },
};

const markdownOutliner: Outliner = {
  id: 'markdown',
  async analyze(path, content) {
    if (!isMarkdownPath(path)) return null;
    return { fileType: 'Markdown', family: 'markdown', commentPrefix: '', items: outlineMarkdown(content) };
  },
};

const DATA_LABELS = { json: 'JSON', yaml: 'YAML', toml: 'TOML' } as const;

const dataOutliner: Outliner = {
  id: 'data',
  async analyze(path, content) {
    const format = dataFormatOf(path);
    if (!format) return null;
    const items = await outlineData(format, content);
    return items && { fileType: DATA_LABELS[format], family: 'data', commentPrefix: '#', items };
  },
};

const fallbackOutliner: Outliner = {
  id: 'lines',
  async analyze(path, content) {
    return { fileType: fileTypeForPath(path) ?? fallbackFileType(path), family: 'text', commentPrefix: '#', items: outlineLines(content) };
  },
};

/** Tried in order; the line-based fallback always answers. */
export const OUTLINERS: readonly Outliner[] = [syntaxOutliner, markdownOutliner, dataOutliner, fallbackOutliner];

export async function analyzeFile(path: string, content: string, env: OutlinerEnv): Promise<FileAnalysis> {
  for (const outliner of OUTLINERS) {
    const analysis = await outliner.analyze(path, content, env);
    if (analysis) return analysis;
  }
  return fallbackOutliner.analyze(path, content, env) as Promise<FileAnalysis>;
}

/** `CSS file`, `Dockerfile`, or `Text` when there is no extension. */
export function fallbackFileType(path: string): string {
  const ext = extname(path).slice(1);
  if (ext !== '') return `${ext.toUpperCase()} file`;
  const base = basename(path);
  return /^[A-Z][A-Za-z]+file$/.test(base) ? base : 'Text';
}

/** The file type from the path alone; undefined when it depends on content (no extension). */
export function fileTypeForPath(path: string): string | undefined {
  const language = languageForPath(path);
  if (language) return language.fileType;
  if (isMarkdownPath(path)) return 'Markdown';
  const format = dataFormatOf(path);
  if (format) return DATA_LABELS[format];
  return extname(path) === '' ? undefined : fallbackFileType(path);
}
