import { sha256Hex } from '../util/hash.js';
import type { Tokenizer } from '../tokenize/tokenizer.js';
import { truncateWithStrategy } from '../tokenize/truncate.js';
import { formatCount, plural } from '../util/format.js';

/**
 * Spec 002 D, tool output normalisation: before a tool result enters the prompt, terminal
 * noise is removed (ANSI colours, carriage-return redraws, runs of progress lines, runs of
 * identical lines) and what is left is capped. Whenever the prompt does not carry the output
 * verbatim, the full text goes out of band, content-addressed, and the message keeps a pointer.
 */

/** A run of this many identical lines or more becomes one line and a count. */
const MIN_REPEAT_RUN = 3;
/** Hex digits of the sha256 in a pointer: 64 bits, unique across any one repository's outputs. */
export const POINTER_HEX_DIGITS = 16;
export const POINTER_PREFIX = 'sha256:';

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[()][A-Za-z0-9]/g;
const PERCENT = /(?:^|[\s(\[:])\d{1,3}(?:\.\d+)?\s?%/;
const BAR = /[#=█▏▎▍▌▋▊▉░▒▓■□>-]{4,}|\[[#=>. -]{3,}\]/;
const PROGRESS_VERB = /^\s*(?:downloading|fetching|uploading|progress|resolving|receiving objects|resolving deltas|counting objects|compressing objects|writing objects|unpacking objects|extracting|installing)\b/i;
const STEP_COUNTER = /^\s*\[\s*\d+\s*\/\s*\d+\s*\]\s/;
const SPINNER_ONLY = /^\s*[|/\\\-⠁-⣿◐◓◑◒.·•]+\s*$/;

/** True for a line that only reports progress (a bar, a percentage, a spinner, `[12/340]`). */
export function isProgressLine(line: string): boolean {
  if (line.trim() === '') return false;
  if (SPINNER_ONLY.test(line)) return true;
  if (STEP_COUNTER.test(line)) return true;
  return PERCENT.test(line) && (BAR.test(line) || PROGRESS_VERB.test(line) || line.trim().length <= 24);
}

export interface NormalisedOutput {
  text: string;
  /** Lines removed by collapsing (progress and repeats). */
  collapsed: number;
}

/**
 * Remove terminal noise: ANSI escapes; a line redrawn with `\r` keeps its last state; a run of
 * two or more progress lines keeps its last line and a marker; a run of MIN_REPEAT_RUN or more
 * identical lines keeps one and a count; trailing spaces and runs of blank lines shrink.
 */
export function normaliseToolOutput(raw: string): NormalisedOutput {
  const lines = raw
    .replace(ANSI, '')
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => lastRedraw(line).replace(/[ \t]+$/, ''));
  const out: string[] = [];
  let collapsed = 0;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    let j = i + 1;
    if (isProgressLine(line)) {
      while (j < lines.length && isProgressLine(lines[j]!)) j++;
      if (j - i >= 2) {
        out.push(`[... ${plural(j - i - 1, 'progress line')} collapsed ...]`, lines[j - 1]!);
        collapsed += j - i - 1;
        i = j;
        continue;
      }
    }
    j = i + 1;
    while (j < lines.length && lines[j] === line) j++;
    const run = j - i;
    if (line === '' && run >= 2) {
      out.push('');
      collapsed += run - 1;
    } else if (run >= MIN_REPEAT_RUN) {
      out.push(line, `[... previous line repeated ${formatCount(run - 1)} more times ...]`);
      collapsed += run - 1;
    } else {
      for (let k = i; k < j; k++) out.push(line);
    }
    i = j;
  }
  return { text: out.join('\n'), collapsed };
}

/** The content address of an output: `sha256:` and the first POINTER_HEX_DIGITS hex digits. */
export function outputPointer(fullText: string): string {
  return `${POINTER_PREFIX}${sha256Hex(fullText).slice(0, POINTER_HEX_DIGITS)}`;
}

/** The line a message keeps in place of what was cut; `aiwg conversation show-output` reads it. */
export function pointerLine(pointer: string, fullTokens: number): string {
  return `[full output, ${formatCount(fullTokens)} tokens, stored out of band: aiwg conversation show-output ${pointer}]`;
}

export interface PreparedToolOutput {
  /** What the message carries: normalised, capped, with the pointer line when not verbatim. */
  text: string;
  tokens: number;
  /** True when the prompt does not carry the output verbatim. */
  changed: boolean;
  /** True when the cap cut it (beyond noise removal). */
  capped: boolean;
  /** Set when `changed`: the full text belongs in the out-of-band store under this pointer. */
  pointer?: string;
}

/**
 * Normalise, then cap at `cap` tokens keeping the end (spec 001: logs keep their recent part).
 * With `storeOutOfBand`, any output the prompt does not carry verbatim gets a pointer line first.
 */
export function prepareToolOutput(raw: string, options: { cap: number; tokenizer: Tokenizer; storeOutOfBand: boolean }): PreparedToolOutput {
  const { tokenizer, cap } = options;
  const normalised = normaliseToolOutput(raw);
  const changed0 = normalised.text !== raw;
  const tokens0 = tokenizer.count(normalised.text);
  if (!changed0 && tokens0 <= cap) return { text: raw, tokens: tokens0, changed: false, capped: false };
  const head = options.storeOutOfBand ? `${pointerLine(outputPointer(raw), tokenizer.count(raw))}\n` : '';
  const room = Math.max(0, cap - tokenizer.count(head));
  let body = normalised.text;
  let capped = false;
  if (tokenizer.count(head + body) > cap) {
    const cut = truncateWithStrategy(body, { budget: room, strategy: 'start', tokenizer });
    body = cut ? cut.text : '';
    capped = true;
  }
  let text = head + body;
  // BPE joins across the pointer line: drop body lines until the whole fits.
  while (tokenizer.count(text) > cap && body !== '') {
    body = body.slice(body.indexOf('\n') + 1 || body.length);
    text = head + body;
  }
  if (tokenizer.count(text) > cap) text = '';
  return {
    text,
    tokens: tokenizer.count(text),
    changed: true,
    capped,
    ...(options.storeOutOfBand ? { pointer: outputPointer(raw) } : {}),
  };
}

/** Keep what a line shows after its last carriage-return redraw. */
function lastRedraw(line: string): string {
  if (!line.includes('\r')) return line;
  const states = line.split('\r').filter((s) => s !== '');
  return states[states.length - 1] ?? '';
}
