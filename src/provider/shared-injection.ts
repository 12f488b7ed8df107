import { truncateToTokenBudget } from '../tokenize/budget.js';
import type { Tokenizer } from '../tokenize/tokenizer.js';
import type { SharedContextPort, SharedEntry } from './ports.js';

/**
 * The mission's shared entries placed in an agent's context (spec 004 §4.3, MissionContextSection):
 * most relevant to the task first (the port's own ranking), then the rest newest first; each
 * entry is kept whole while it fits the share of the budget, cut at a sentence or word boundary
 * by the engine's `truncateToTokenBudget` when only part fits, and dropped otherwise.
 */

/** Share of the context's tokens shared entries may take at most; what they leave goes to the files. */
export const DEFAULT_SHARED_SHARE = 0.2;
/** A cut entry shorter than this many tokens says nothing useful: drop it instead. */
const MIN_CUT_TOKENS = 12;

export interface SharedBlock {
  /** The rendered block, '' when no entry went in. */
  text: string;
  tokens: number;
  included: number;
  /** Entries cut to fit. */
  truncated: number;
  /** Entries left out. */
  dropped: number;
}

export interface FitSharedOptions {
  shared: SharedContextPort;
  mission: string;
  agent?: string;
  task: string;
  /** Most tokens the block may hold. */
  budget: number;
  tokenizer: Tokenizer;
}

export async function fitSharedEntries(options: FitSharedOptions): Promise<SharedBlock> {
  const { shared, mission, agent, tokenizer } = options;
  const all = await shared.entries(mission, { agent });
  const empty: SharedBlock = { text: '', tokens: 0, included: 0, truncated: 0, dropped: all.length };
  if (all.length === 0 || options.budget <= 0) return empty;
  const ranked = await shared.query(mission, options.task, { agent, limit: all.length });
  const first = new Set(ranked.map((h) => h.sequence));
  const ordered: SharedEntry[] = [...ranked, ...all.filter((e) => !first.has(e.sequence)).reverse()];

  const lines: string[] = [];
  let truncated = 0;
  const render = (body: string[]) => `<shared-context mission="${attr(mission)}"${agent === undefined ? '' : ` agent="${attr(agent)}"`}>\n${body.join('\n')}\n</shared-context>`;
  for (const entry of ordered) {
    const label = `[${entry.key}${entry.agent === undefined ? '' : ` (agent ${entry.agent})`} #${entry.sequence}] `;
    const whole = label + entry.content;
    if (tokenizer.count(render([...lines, whole])) <= options.budget) {
      lines.push(whole);
      continue;
    }
    const spare = options.budget - tokenizer.count(render([...lines, label]));
    if (spare < MIN_CUT_TOKENS) continue;
    const cut = truncateToTokenBudget(entry.content, spare, tokenizer);
    if (cut !== '' && tokenizer.count(render([...lines, label + cut])) <= options.budget) {
      lines.push(label + cut);
      truncated++;
    }
  }
  if (lines.length === 0) return empty;
  const text = render(lines);
  return { text, tokens: tokenizer.count(text), included: lines.length, truncated, dropped: all.length - lines.length };
}

function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
