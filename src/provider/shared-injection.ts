import { truncateToTokenBudget } from '../tokenize/budget.js';
import { cutToFit, type TruncatePort } from '../allocate/cut-to-fit.js';
import type { Tokenizer } from '../tokenize/tokenizer.js';
import { UsageError } from '../errors.js';
import type { ContextMetadata, ContextRequest, SharedContextPort, SharedEntry } from './ports.js';

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
    // The engine's one truncation choice, with spec 000's sentence/word cut: cut to what the
    // block has left, count the whole block, cut again while it is over.
    const cut = cutToFit({
      content: entry.content,
      strategy: 'end',
      tokenizer,
      remaining: options.budget,
      contentBudget: options.budget - tokenizer.count(render([...lines, label])),
      minContentTokens: MIN_CUT_TOKENS,
      truncate: sentenceCut,
      price: ({ text }) => ({ line: label + text, cost: tokenizer.count(render([...lines, label + text])) }),
    });
    if (cut) {
      lines.push(cut.line);
      truncated++;
    }
  }
  if (lines.length === 0) return empty;
  const text = render(lines);
  return { text, tokens: tokenizer.count(text), included: lines.length, truncated, dropped: all.length - lines.length };
}

/** truncateToTokenBudget as the engine's truncation port (the strategy is always its own). */
const sentenceCut: TruncatePort = (text, { budget, tokenizer }) => {
  const cut = truncateToTokenBudget(text, budget, tokenizer);
  return { text: cut, tokens: tokenizer.count(cut), originalTokens: tokenizer.count(text), truncated: cut !== text };
};

function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** Between the shared block and what follows it. */
export const SHARED_SEPARATOR = '\n\n';

/** A request's mission block and what it costs the rest of the context (block + separator + one token of slack). */
export interface MissionBlock extends SharedBlock {
  cost: number;
}

/**
 * The mission's block for a request, or undefined when the request names no mission. Every
 * provider (the budget adapter, the in-memory fake) calls this, so both inject the same way:
 * a share of `total` for the entries, the rest for the provider's own content.
 */
export async function missionBlock(
  request: Pick<ContextRequest, 'mission' | 'agent' | 'task'>,
  options: { shared?: SharedContextPort; sharedShare?: number; total: number; tokenizer: Tokenizer },
): Promise<MissionBlock | undefined> {
  if (request.mission === undefined) return undefined;
  if (options.shared === undefined) {
    throw new UsageError(`buildContext: mission "${request.mission}" given but this provider has no shared context: pass { shared: createSharedContext(...) }`);
  }
  const share = options.sharedShare ?? DEFAULT_SHARED_SHARE;
  if (!(share >= 0 && share < 1)) throw new UsageError(`sharedShare must be a fraction in [0, 1), got ${String(share)}`);
  const block = await fitSharedEntries({
    shared: options.shared,
    mission: request.mission,
    agent: request.agent,
    task: request.task,
    budget: Math.floor(options.total * share),
    tokenizer: options.tokenizer,
  });
  // One token of slack: BPE may merge across the seam of block and what follows.
  const cost = block.text === '' ? 0 : block.tokens + options.tokenizer.count(SHARED_SEPARATOR) + 1;
  return { ...block, cost };
}

/** The block put before `context`, and the metadata keys that say what went in. */
export function withMissionBlock(
  block: MissionBlock,
  answer: { context: string; metadata: ContextMetadata },
  options: { total: number; tokenizer: Tokenizer },
): { context: string; metadata: ContextMetadata } {
  const context = block.text === '' ? answer.context : `${block.text}${SHARED_SEPARATOR}${answer.context}`;
  return {
    context,
    metadata: {
      ...answer.metadata,
      context_tokens_used: options.tokenizer.count(context),
      available_tokens: options.total,
      shared_entries_included: block.included,
      shared_entries_truncated: block.truncated,
      shared_entries_trimmed: block.dropped,
      shared_tokens: block.tokens,
    },
  };
}
