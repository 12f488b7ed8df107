import type { TierName } from '../types.js';
import type { RenderFormat } from '../stages.js';
import { countJoined, type Tokenizer } from '../tokenize/tokenizer.js';
import { BudgetExceededError } from '../errors.js';
import { renderDocument, renderHeader } from '../assemble/render.js';
import { emptyIncluded, type BootHeader } from '../assemble/boot-header.js';
import type { HistoryItem } from '../assemble/history-window.js';
import type { Candidate } from './candidates.js';
import { fmt } from './overflow.js';
import { FILE_TIERS, type FileTier } from './tiers.js';

/** A candidate and the option it holds (-1 = dropped). */
export interface Placement {
  candidate: Candidate;
  choice: number;
}

/** How the repair loop makes room: step a file down a level, drop it, or refuse (`error`). */
export type RepairMode = 'degrade' | 'drop' | 'fail';
export type HeaderMode = 'full' | 'minimal' | 'none';

export interface FitInput {
  placements: Record<FileTier, Placement[]>;
  history: HistoryItem[];
  header: Pick<BootHeader, 'root' | 'task' | 'available' | 'boot'> & { excludedBefore: number };
  headerMode: HeaderMode;
  format: RenderFormat;
  tokenizer: Tokenizer;
  available: number;
  mode: RepairMode;
}

export interface FitResult {
  rendered: string;
  tokens: number;
  placements: Record<FileTier, Placement[]>;
  history: HistoryItem[];
  headerMode: HeaderMode;
  /** Paths stepped down or dropped by the repair loop. */
  repaired: string[];
}

/** Header re-renders allowed for its `used` figure to settle (it counts itself). */
const HEADER_SETTLE_ROUNDS = 4;

/**
 * Render the context and enforce THE GUARANTEE: tokenizer.count(rendered) <= available. The
 * allocation already fits by block costs; BPE merges across boundaries or a header longer than
 * reserved can still tip it over, so after rendering the whole text is counted and, while over,
 * the lowest-value file is stepped down or dropped (then the oldest history group, then the
 * header shrinks to its minimal form, then to nothing) and the text re-rendered.
 */
export function fitRender(input: FitInput): FitResult {
  const { available } = input;
  const placements = Object.fromEntries(FILE_TIERS.map((t) => [t, input.placements[t].map((p) => ({ ...p }))])) as Record<FileTier, Placement[]>;
  const ranked = FILE_TIERS.flatMap((t) => placements[t]);
  let history = [...input.history];
  let headerMode = input.headerMode;
  const repaired = new Set<string>();
  const { text, tokens } = fitWhole({
    render: () => renderOnce(placements, history, headerMode, input),
    available,
    failFast: input.mode === 'fail',
    overBudget: (needed) =>
      new BudgetExceededError(`the rendered context needs ${fmt(needed)} tokens but ${fmt(available)} are available: raise --max-tokens or use --overflow summarize`),
    giveWay: (excess) => {
      let saved = shrinkRanked(ranked, excess, input.mode, repaired);
      while (saved < excess && history.length > 0) {
        const oldest = history[0]!.group;
        saved += history.filter((h) => h.group === oldest).reduce((sum, h) => sum + h.cost, 0);
        history = history.filter((h) => h.group !== oldest);
      }
      if (saved > 0) return true;
      // Nothing is left to remove: the header itself must shrink.
      if (headerMode === 'none') return false;
      headerMode = headerMode === 'full' ? 'minimal' : 'none';
      return true;
    },
  });
  return { rendered: text, tokens, placements, history, headerMode, repaired: [...repaired].sort() };
}

/** Something a repair may step down or drop: its options' costs, best first, and the one it holds (-1 = dropped). */
export interface Repairable {
  candidate: { path: string; options: ReadonlyArray<{ cost: number }> };
  choice: number;
}

export interface FitWholeInput<R extends { tokens: number } = { text: string; tokens: number }> {
  /** Renders the current state; `tokens` is the whole rendering counted by the run's tokenizer. */
  render: () => R;
  available: number;
  /** Makes room for about `excess` tokens (by block costs); false when nothing is left to give way. */
  giveWay: (excess: number) => boolean;
  /** The error when over and nothing may (`failFast`) or can give way. */
  overBudget: (tokens: number) => Error;
  failFast?: boolean;
}

/**
 * THE GUARANTEE, the one loop every front end fits through: render, count the whole text and,
 * while it is over `available`, let the next thing give way (the front end says what, in its
 * order) and render again. Block costs only estimate the whole: BPE merges across boundaries
 * and a header that counts itself can tip a sum that fits over the budget.
 */
export function fitWhole<R extends { tokens: number }>(input: FitWholeInput<R>): R {
  for (;;) {
    const rendered = input.render();
    if (rendered.tokens <= input.available) return rendered;
    if (input.failFast === true || !input.giveWay(rendered.tokens - input.available)) throw input.overBudget(rendered.tokens);
  }
}

/**
 * fitWhole for a front end whose rendering or giving way waits on I/O (the conversation
 * builder folds what leaves its window into a summary, maybe by an LLM); the same loop.
 */
export async function fitWholeAsync<R extends { tokens: number }>(
  input: Omit<FitWholeInput<R>, 'render' | 'giveWay'> & { render: () => R | Promise<R>; giveWay: (excess: number) => Promise<boolean> },
): Promise<R> {
  for (;;) {
    const rendered = await input.render();
    if (rendered.tokens <= input.available) return rendered;
    if (input.failFast === true || !(await input.giveWay(rendered.tokens - input.available))) throw input.overBudget(rendered.tokens);
  }
}

function renderOnce(
  placements: Record<FileTier, Placement[]>,
  history: HistoryItem[],
  headerMode: HeaderMode,
  input: FitInput,
): { text: string; tokens: number } {
  const { format, tokenizer } = input;
  if (headerMode === 'none') return { text: '', tokens: 0 };
  const blocks: Record<TierName, string[]> = { primary: [], supporting: [], reference: [], history: history.map((h) => h.block) };
  const included = emptyIncluded();
  let dropped = 0;
  for (const tier of FILE_TIERS) {
    for (const p of placements[tier]) {
      if (p.choice < 0) {
        dropped++;
        continue;
      }
      const option = p.candidate.options[p.choice]!;
      blocks[tier].push(option.block);
      included[tier][option.level] = (included[tier][option.level] ?? 0) + 1;
    }
  }
  const body = renderDocument('', blocks, format);
  if (headerMode === 'minimal') {
    const text = renderHeader({ minimal: true, available: input.available }, format) + body;
    return { text, tokens: tokenizer.count(text) };
  }
  const header = (used: number): BootHeader => ({
    root: input.header.root,
    task: input.header.task,
    available: input.header.available,
    used,
    included,
    historyMessages: history.length,
    excluded: input.header.excludedBefore + dropped,
    ...(input.header.boot ? { boot: input.header.boot } : {}),
  });
  // Settle the header's `used` figure on the cheap estimate first, then on exact whole counts.
  const bodyTokens = tokenizer.count(body);
  let used = bodyTokens;
  for (let k = 0; k < HEADER_SETTLE_ROUNDS; k++) {
    const next = tokenizer.count(renderHeader(header(used), format)) + bodyTokens;
    if (next === used) break;
    used = next;
  }
  // the whole text counted: the header's count plus the body's where they join at a safe split
  let head = renderHeader(header(used), format);
  let tokens = countJoined(tokenizer, head, body, bodyTokens);
  for (let k = 0; k < HEADER_SETTLE_ROUNDS && tokens !== used; k++) {
    used = tokens;
    head = renderHeader(header(used), format);
    tokens = countJoined(tokenizer, head, body, bodyTokens);
  }
  return { text: head + body, tokens };
}

/**
 * Step items down (or drop them), last-ranked first, until the estimated saving covers
 * `excess`: a repair keeps the allocation monotone in rank. `ranked` is best first (for
 * context-budget the tiers in order, each by weight). Returns the tokens saved by block costs.
 */
export function shrinkRanked(ranked: readonly Repairable[], excess: number, mode: RepairMode, repaired: Set<string>): number {
  const kept = ranked.filter((p) => p.choice >= 0).reverse();
  let saved = 0;
  for (const p of kept) {
    if (saved >= excess) break;
    const options = p.candidate.options;
    const current = options[p.choice]!;
    let next = -1;
    if (mode === 'degrade') {
      for (let k = p.choice + 1; k < options.length; k++) {
        if (options[k]!.cost < current.cost) {
          next = k;
          break;
        }
      }
    }
    saved += current.cost - (next >= 0 ? options[next]!.cost : 0);
    p.choice = next;
    repaired.add(p.candidate.path);
  }
  return saved;
}
