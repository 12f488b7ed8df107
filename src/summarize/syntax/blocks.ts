import type { LanguageSpec } from '../languages/types.js';

/**
 * Top-level blocks of a source file, cut without parsing, so that a changed file's outline is
 * parsed only where it changed: each block's outline is kept by its text (block-store.ts), and an
 * edit to one function leaves the other blocks' texts, and so their outlines, as they were.
 *
 * A block starts at a line that starts code at column 0 (a letter, `_`, `$`, or a decorator's
 * `@`), moved up over the comment, decorator and attribute lines right above it (a block comment
 * whole), so that what documents a definition stays with it. Lines that go on with the statement
 * before (`else`, `except`, `end`, `}`, an indented line, a definition after its decorators)
 * never start one, nor does a line after an opening one (`x = (`), a line inside a multi-line
 * string or comment (or, for languages with a preprocessor, a column-0 `#if` region), a one-line
 * statement after another of its kind (a run of imports), or the file's first code line: the
 * first block holds the file's header and its first code together. Each boundary depends on the
 * lines around it and on which multi-line strings are open there, so an edit moves no boundary
 * elsewhere unless it opens or closes one.
 *
 * The cut is a guess: a column-0 line inside a template string or a block comment can start a
 * block. A wrong cut leaves a syntax error in a block (an unterminated string, a missing brace),
 * and the outliner then parses the whole file instead (syntax/engine.ts).
 */

/** One block: the text from `start` (a line start) up to the next block, its first row. */
export interface SourceBlock {
  start: number;
  end: number;
  row: number;
}

/** Fewer rows than this: one block (parsing a small file whole costs no more than a lookup). */
export const MIN_SPLIT_ROWS = 40;

/** Words that continue the statement above when they start a line. */
const CONTINUATIONS = new Set(['else', 'elif', 'elsif', 'except', 'finally', 'catch', 'end', 'rescue', 'ensure', 'when', 'then', 'do', 'done', 'fi', 'esac', 'in', 'where']);

/**
 * The blocks of `content`, in order and covering it. Files under MIN_SPLIT_ROWS rows, files
 * without a second place to cut, and files of a language parsed whole (LanguageSpec.blocks) are
 * one block.
 */
export function splitBlocks(content: string, style: LanguageSpec['blocks'] = 'lines'): SourceBlock[] {
  const lineStarts = [0];
  for (let i = content.indexOf('\n'); i !== -1; i = content.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const rows = lineStarts.length;
  const whole: SourceBlock[] = [{ start: 0, end: content.length, row: 0 }];
  if (rows < MIN_SPLIT_ROWS || style === 'whole') return whole;
  const line = (row: number) => content.slice(lineStarts[row]!, row + 1 < rows ? lineStarts[row + 1]! - 1 : content.length);
  const cuts: number[] = [];
  let codeSeen = false;
  // the last line of code (not blank, not a comment), and the last line that started a statement at column 0
  let previous = '';
  let statement = '';
  let quoted = new Set<string>();
  // per row: whether it starts inside a multi-line string or comment, and inside a block comment
  const inside: boolean[] = [];
  const inComment: boolean[] = [];
  // `#if` regions open at this row (style `preprocessor`)
  let conditional = 0;
  for (let row = 0; row < rows; row++) {
    const text = line(row);
    inside.push(quoted.size > 0 || conditional > 0);
    inComment.push(quoted.has('/*'));
    if (style === 'preprocessor' && text.startsWith('#')) conditional = Math.max(0, conditional + (/^#\s*if/.test(text) ? 1 : /^#\s*endif\b/.test(text) ? -1 : 0));
    if (quoted.size === 0 && conditional === 0 && isCodeStart(text) && !opensNext(previous)) {
      if (codeSeen && !statement.startsWith('@') && !sameOneLineKind(previous, text)) {
        // up over the comments (a block comment whole) and decorators that touch it
        let cut = row;
        while (cut > 0 && (isAttached(line(cut - 1)) || inComment[cut - 1])) cut--;
        if (cut > (cuts.at(-1) ?? 0) && !inside[cut]) cuts.push(cut);
      }
      codeSeen = true;
      statement = text;
    }
    quoted = toggledQuotes(quoted, text);
    const first = firstNonBlank(text);
    if (first < text.length && !startsComment(text, first)) previous = text;
  }
  if (cuts.length === 0) return whole;
  const blocks: SourceBlock[] = [];
  let from = 0;
  for (const cut of [...cuts, rows]) {
    const end = cut < rows ? lineStarts[cut]! : content.length;
    blocks.push({ start: lineStarts[from]!, end, row: from });
    from = cut;
  }
  return blocks;
}

/** A line starting code (or a decorator) at column 0 that does not continue the statement above. */
function isCodeStart(text: string): boolean {
  const first = text.charCodeAt(0);
  if (first === 64) return true;
  const letter = (first >= 97 && first <= 122) || (first >= 65 && first <= 90) || first === 95 || first === 36;
  if (!letter) return false;
  const word = /^[A-Za-z_$][\w$]*/.exec(text)![0];
  return !CONTINUATIONS.has(word);
}

/** A line that leaves a bracket or an expression open, or continues onto the next line. */
function opensNext(text: string): boolean {
  const end = text.trimEnd();
  if (end === '') return false;
  const last = end.charAt(end.length - 1);
  return last === '(' || last === '[' || last === ',' || last === '=' || last === '\\' || last === '+' || last === '&' || last === '|' || last === '.';
}

/** Comments, decorators and attributes: they belong to the code line below them. */
function isAttached(text: string): boolean {
  const first = firstNonBlank(text);
  return startsComment(text, first) || text.charCodeAt(first) === 64;
}

/** Where a line's first character other than a space or tab is (its length when there is none). */
function firstNonBlank(text: string): number {
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9 || text.charCodeAt(i) === 13)) i++;
  return i;
}

/** Whether a comment (or a block comment's continuation) starts at `at`, in one of the languages outlined: `//`, `/*`, `*`, `#`. */
function startsComment(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  return c === 42 || c === 35 || (c === 47 && (text.charCodeAt(at + 1) === 47 || text.charCodeAt(at + 1) === 42));
}

/** Two one-line statements that start with the same word (a run of imports): kept together. */
function sameOneLineKind(previous: string, text: string): boolean {
  const a = /^(import|from|use|using|require|package|const|let|var|export)\b/.exec(previous)?.[1];
  return a !== undefined && text.startsWith(a) && !/[{([]\s*$/.test(previous) && !/[{([]\s*$/.test(text);
}

/** Multi-line string and comment openers, by their closer: no block starts inside one. */
const QUOTES: ReadonlyArray<[open: string, close: string]> = [['"""', '"""'], ["'''", "'''"], ['`', '`'], ['/*', '*/']];

/**
 * Which multi-line strings and comments are open after `text`, from those open before it: a
 * rough count (a quote inside another kind of string counts too); a wrong guess only costs a cut
 * or makes one that the parse then rejects.
 */
function toggledQuotes(open: Set<string>, text: string): Set<string> {
  let next = open;
  for (const [opener, closer] of QUOTES) {
    const isOpen = next.has(opener);
    if (!isOpen && !text.includes(opener)) continue;
    const flips = opener === closer ? count(text, opener) % 2 === 1 : isOpen ? text.lastIndexOf(closer) > text.lastIndexOf(opener) : text.lastIndexOf(opener) > text.lastIndexOf(closer);
    if (!flips) continue;
    next = new Set(next);
    if (isOpen) next.delete(opener);
    else next.add(opener);
  }
  return next;
}

function count(text: string, part: string): number {
  let n = 0;
  for (let i = text.indexOf(part); i !== -1; i = text.indexOf(part, i + part.length)) n++;
  return n;
}
