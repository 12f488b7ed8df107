import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../../../src/summarize/outline/index.js';
import { applyPreserve, PRESERVE_NAMES } from '../../../src/summarize/outline/preserve.js';
import { renderOutline } from '../../../src/summarize/outline/render.js';
import { createSyntaxEngine } from '../../../src/summarize/syntax/engine.js';
import { createChars4Tokenizer } from '../../../src/tokenize/tokenizer.js';
import { buildStub, STUB_FIELD_NAMES } from '../../../src/summarize/stub.js';
import { validateConfig } from '../../../src/config/validate.js';

const SOURCE = `import { x } from './x.js';

/** Adds two numbers. */
export function add(a: number, b: number): number {
  return a + b;
}

export interface Point {
  x: number;
}

/** A counter. */
export class Counter {
  count = 0;
  increment(): void {
    this.count++;
  }
}
`;

async function outline(preserve: readonly string[]): Promise<string> {
  const analysis = await analyzeFile('src/a.ts', SOURCE, { syntax: createSyntaxEngine() });
  return renderOutline(applyPreserve(analysis.items, preserve), { tokenizer: createChars4Tokenizer(), limit: 2000, commentPrefix: analysis.commentPrefix });
}

describe('detailed.preserve', () => {
  it('keeps everything by default', async () => {
    const text = await outline(PRESERVE_NAMES);
    for (const part of ['import { x }', 'Adds two numbers', 'export function add', 'export interface Point', 'export class Counter', 'increment()']) expect(text).toContain(part);
  });

  it.each([
    ['comments/docstrings', ['Adds two numbers', 'A counter'], ['export function add', 'export class Counter']],
    ['function signatures', ['export function add', 'increment()'], ['export class Counter', 'export interface Point']],
    ['interface types', ['export interface Point'], ['export function add']],
    ['class definitions', ['export class Counter'], ['export function add', 'export interface Point']],
  ])('without %s leaves those out and keeps the rest', async (left, gone, kept) => {
    const text = await outline(PRESERVE_NAMES.filter((n) => n !== left));
    for (const part of gone) expect(text).not.toContain(part);
    for (const part of kept) expect(text).toContain(part);
    expect(text).toContain('import { x }');
  });
});

describe('stub.include', () => {
  const input = { path: 'src/a.ts', fileType: 'TypeScript', lastModifiedMs: Date.UTC(2026, 0, 2), lineCount: 9 };
  it('renders only the listed fields, always with the path', () => {
    expect(buildStub(input, createChars4Tokenizer(), 100, ['line count']).content).toBe('path: src/a.ts\nlines: 9');
    expect(buildStub(input, createChars4Tokenizer(), 100, STUB_FIELD_NAMES).content.split('\n')).toHaveLength(4);
  });
});

describe('config validation of preserve and include', () => {
  it.each([
    [{ summarization: { levels: { detailed: { preserve: ['function bodies'] } } } }, /summarization\.levels\.detailed\.preserve.*"function bodies".*"function signatures"/],
    [{ summarization: { levels: { stub: { include: ['owner'] } } } }, /summarization\.levels\.stub\.include.*"owner".*"file path"/],
  ])('refuses unknown entries with the known ones: %j', (input, message) => {
    expect(() => validateConfig(input, 'config.yaml')).toThrow(message);
  });
});
