/**
 * Splits a file into chunks of at most `maxChars` characters for embedding. Blocks come from line
 * structure (a blank line followed by an unindented line, or an unindented definition keyword),
 * which needs no parse: a checkout's changed files are chunked in microseconds, and only the files
 * a context shows are parsed (for their outline). Consecutive small blocks are packed together up
 * to `maxChars`; a block too large for one chunk is cut into line windows that overlap by
 * ~WINDOW_OVERLAP of a chunk; a single line longer than a chunk (minified code) is cut by characters.
 */
export interface Chunk {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  text: string;
}

/**
 * Bump when chunk boundaries change: cached file -> chunk maps are keyed by it. 2: blocks by line
 * structure for every language (1 took them from tree-sitter definitions where a grammar existed).
 */
export const CHUNKER_VERSION = 2;
/** A huge file costs at most this many chunks (the first ones); docs/embeddings.md says why. */
export const MAX_CHUNKS_PER_FILE = 128;
const WINDOW_OVERLAP = 0.15;
const DEFINITION_START =
  /^(?:(?:export|default|pub(?:\([\w:]+\))?|public|private|protected|internal|static|async|abstract|final|declare|unsafe|extern)\s+)*(?:function\*?|class|interface|type|enum|const|let|var|def|fn|func|struct|impl|trait|mod|module|namespace|object|record|macro_rules!)\s/;
const BLOCK_OPENER = /^[A-Za-z_$@#/[<"'*]/;

/** The chunks of a file: at most MAX_CHUNKS_PER_FILE, the first ones. */
export function chunkFile(content: string, maxChars: number): Chunk[] {
  return chunkByLines(content, maxChars).slice(0, MAX_CHUNKS_PER_FILE);
}

export function chunkByLines(content: string, maxChars: number): Chunk[] {
  const lines = splitLines(content);
  return packBlocks(lines, lineBlocks(lines, 0, lines.length - 1), maxChars);
}

function splitLines(content: string): string[] {
  const lines = content.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Blocks of lines [from, to] (0-based inclusive) split where a new top-level construct starts. */
function lineBlocks(lines: readonly string[], from: number, to: number): Array<[number, number]> {
  const blocks: Array<[number, number]> = [];
  let start = from;
  for (let i = from + 1; i <= to; i++) {
    const line = lines[i]!;
    const previousBlank = lines[i - 1]!.trim() === '';
    if (BLOCK_OPENER.test(line) && (previousBlank || DEFINITION_START.test(line))) {
      blocks.push([start, i - 1]);
      start = i;
    }
  }
  if (from <= to) blocks.push([start, to]);
  return blocks;
}

function packBlocks(lines: readonly string[], blocks: ReadonlyArray<[number, number]>, maxChars: number): Chunk[] {
  const chunks: Chunk[] = [];
  const size = (a: number, b: number) => {
    let n = 0;
    for (let i = a; i <= b; i++) n += lines[i]!.length + 1;
    return n - 1;
  };
  const emit = (a: number, b: number) => {
    const text = lines.slice(a, b + 1).join('\n');
    if (text.trim() !== '') chunks.push({ startLine: a + 1, endLine: b + 1, text });
  };
  let open: [number, number] | null = null;
  for (const [start, end] of blocks) {
    const blockSize = size(start, end);
    if (blockSize > maxChars) {
      if (open) emit(...open);
      open = null;
      chunks.push(...windows(lines, start, end, maxChars));
      continue;
    }
    if (open && size(open[0], end) <= maxChars) open = [open[0], end];
    else {
      if (open) emit(...open);
      open = [start, end];
    }
  }
  if (open) emit(...open);
  return chunks;
}

/** Overlapping line windows over [start, end]; over-long single lines are cut by characters. */
function windows(lines: readonly string[], start: number, end: number, maxChars: number): Chunk[] {
  const out: Chunk[] = [];
  const overlapChars = Math.floor(maxChars * WINDOW_OVERLAP);
  let i = start;
  while (i <= end) {
    if (lines[i]!.length > maxChars) {
      const line = lines[i]!;
      for (let c = 0; c < line.length; c += maxChars - overlapChars) {
        const text = line.slice(c, c + maxChars);
        if (text.trim() !== '') out.push({ startLine: i + 1, endLine: i + 1, text });
        if (c + maxChars >= line.length) break;
      }
      i++;
      continue;
    }
    let j = i;
    let chars = lines[i]!.length;
    while (j + 1 <= end && lines[j + 1]!.length <= maxChars && chars + 1 + lines[j + 1]!.length <= maxChars) {
      j++;
      chars += 1 + lines[j]!.length;
    }
    const text = lines.slice(i, j + 1).join('\n');
    if (text.trim() !== '') out.push({ startLine: i + 1, endLine: j + 1, text });
    if (j >= end) break;
    if (lines[j + 1]!.length > maxChars) {
      i = j + 1;
      continue;
    }
    // Overlap: step back one line, then over up to overlapChars of the tail; always move forward.
    let next = j + 1;
    let back = 0;
    while (next - 1 > i && (next === j + 1 || back + lines[next - 1]!.length + 1 <= overlapChars)) {
      next--;
      back += lines[next]!.length + 1;
    }
    i = next;
  }
  return out;
}
