import { createTokenizer, type Tokenizer, type TokenizerId } from '../tokenize/tokenizer.js';
import type { HistoryMessage } from '../stages.js';
import { CONTEXT_MODES, resolveMode, type ContextMode } from './modes/index.js';
import type { AgentContext, ContextProvider, ContextRequest, SharedContextPort } from './ports.js';
import { missionBlock, withMissionBlock } from './shared-injection.js';
import { checkMaxTokens, checkRequest } from './request.js';

/** A named block of text the in-memory provider may place in the context. */
export interface ContextSection {
  name: string;
  content: string;
}

export interface InMemoryContextProviderOptions {
  /** Candidate sections, most important first. */
  sections: ContextSection[];
  /** Budget when a request gives no maxTokens. */
  defaultMaxTokens?: number;
  tokenizer?: TokenizerId;
  modes?: readonly ContextMode[];
  /** Run ids; `memory-1`, `memory-2`, ... per provider when absent. */
  newRunId?: () => string;
  /** Where a request's `mission` is read from, as for the budget adapter; requests naming a mission need it. */
  shared?: SharedContextPort;
  /** Most of the context, as a fraction, the mission's entries may take; 0.2 when absent. */
  sharedShare?: number;
}

/** Default budget of the fake, in tokens: small, as consumer tests want. */
export const DEFAULT_MEMORY_MAX_TOKENS = 8_000;
const SEPARATOR = '\n\n';

/**
 * An in-memory fake of the port for consumers' tests (Cosmic Python's fake adapter): no
 * repository, no scoring. Sections are taken in the given order and each one that still fits
 * under maxTokens (counted with the real tokenizer on the joined text) is kept; the history,
 * when given, is one more section at the end. A request naming a mission gets the mission's
 * shared entries first, exactly as the budget adapter places them (shared-injection.ts), and the
 * sections fill what they leave. Same metadata keys as the budget adapter.
 */
export function createInMemoryContextProvider(options: InMemoryContextProviderOptions): ContextProvider {
  const modes = options.modes ?? CONTEXT_MODES;
  const defaultMax = checkMaxTokens(options.defaultMaxTokens, 'createInMemoryContextProvider: defaultMaxTokens') ?? DEFAULT_MEMORY_MAX_TOKENS;
  const tokenizerId = options.tokenizer ?? 'o200k';
  let tokenizer: Promise<Tokenizer> | undefined;
  let runs = 0;
  const newRunId = options.newRunId ?? (() => `memory-${++runs}`);
  return {
    async buildContext(request: ContextRequest): Promise<AgentContext> {
      const maxTokens = checkRequest(request) ?? defaultMax;
      const mode = resolveMode(request.mode, modes);
      tokenizer ??= createTokenizer(tokenizerId);
      const tk = await tokenizer;
      const count = (text: string): number => tk.count(text);
      const shared = await missionBlock(request, { ...options, total: maxTokens, tokenizer: tk });
      const sectionsMax = maxTokens - (shared?.cost ?? 0);
      const candidates = [...options.sections, ...historySection(request.history ?? [])].map(renderSection);
      let context = '';
      let included = 0;
      for (const block of candidates) {
        const next = context === '' ? block : `${context}${SEPARATOR}${block}`;
        if (count(next) > sectionsMax) continue;
        context = next;
        included++;
      }
      const answer = {
        context,
        metadata: {
          context_tokens_used: count(context),
          sections_trimmed: candidates.length - included,
          files_included: included,
          available_tokens: maxTokens,
          run_id: newRunId(),
          scoring_method: 'none',
          embedding_model: '',
          mode: mode.name,
          tokenizer: tokenizerId,
        },
      };
      return { mode: mode.name, ...(shared === undefined ? answer : withMissionBlock(shared, answer, { total: maxTokens, tokenizer: tk })) };
    },
  };
}

function renderSection(section: ContextSection): string {
  return `## ${section.name}${SEPARATOR}${section.content}`;
}

function historySection(history: HistoryMessage[]): ContextSection[] {
  if (history.length === 0) return [];
  return [{ name: 'history', content: history.map((m) => `${m.role}: ${m.content}`).join('\n') }];
}
