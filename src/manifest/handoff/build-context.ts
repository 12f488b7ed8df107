import { budgetResult, truncateToTokenBudget, type ContextBudgetResult } from '../../tokenize/budget.js';
import { createChars4Tokenizer, type Tokenizer } from '../../tokenize/tokenizer.js';
import { BudgetExceededError } from '../../errors.js';
import { fitWhole } from '../../allocate/fit-render.js';
import { budgetLogLine, type BudgetLogLine } from '../../record/budget-log.js';
import { redactSecrets } from '../../security/redact-secrets.js';
import {
  DEFAULT_NARRATIVE_CAP,
  HANDOFF_FIELDS,
  PHASE_NAMES,
  type HandoffField,
  type PhaseHandoff,
  type PhaseManifest,
} from './manifests.js';

/**
 * Spec 000 section 3: select -> assemble -> truncate. Selection follows the manifest's
 * handoff_fields and the narrative_cap table; assembly renders a fixed template; truncation
 * goes through the engine's guarantee (`fitWhole`, the text cut by spec 000's
 * truncateToTokenBudget when over) when max_tokens > 0, logged as one budget log line
 * (src/record/budget-log.ts) per application.
 */
export interface HandoffContextDeps {
  /** Counts tokens for the budget; spec 000's estimateTokens (chars/4) by default. */
  tokenizer?: Tokenizer;
  /** Appends one line to `.aiwg/rag/context-budget-log.jsonl` (appendBudgetLog); no logging without it. */
  log?: (line: BudgetLogLine) => Promise<void>;
  /** Clock for the log's `ts`. */
  now?: () => number;
  runId?: string;
  /** Keep credentials found in handoff text (collect.include_secrets); redacted by default. */
  keepSecrets?: boolean;
}

export interface HandoffContextResult {
  /** The context block for the phase ('' when nothing was selected). */
  text: string;
  /** Set when the budget was applied (max_tokens > 0 and something to budget). */
  budget: ContextBudgetResult | null;
  /** Fields that were selected, in render order. */
  fields: HandoffField[];
  /** Unknown field names and similar problems: reported, never fatal. */
  warnings: string[];
}

/** What the narrative gets: null = omitted, else the cap in characters. Spec 000's table. */
export function narrativeCapFor(manifest: Pick<PhaseManifest, 'handoff_fields' | 'narrative_cap'>): number | null {
  const hasFields = manifest.handoff_fields.length > 0;
  if (manifest.narrative_cap > 0) return manifest.narrative_cap;
  return hasFields ? null : DEFAULT_NARRATIVE_CAP;
}

/** Cap text at `cap` characters (code points), marking a cut with "..." inside the cap. */
export function capNarrative(text: string, cap: number): string {
  const chars = Array.from(text);
  if (chars.length <= cap) return text;
  if (cap <= 3) return chars.slice(0, cap).join('');
  return `${chars.slice(0, cap - 3).join('').trimEnd()}...`;
}

interface PhaseSection {
  label: string;
  artifacts_produced: string[];
  decisions_made: string[];
  open_risks: string[];
  narrative?: string;
}

/** Select the manifest's fields from the handoffs (spec 000 step 1). */
export function selectHandoffFields(handoffs: readonly PhaseHandoff[], manifest: PhaseManifest) {
  const warnings: string[] = [];
  const requested = manifest.handoff_fields.length > 0 ? manifest.handoff_fields : HANDOFF_FIELDS;
  const known = new Set<string>();
  for (const name of requested) {
    if ((HANDOFF_FIELDS as readonly string[]).includes(name)) known.add(name);
    else warnings.push(`phase ${manifest.phase} manifest: unknown handoff field "${name}" ignored (known: ${HANDOFF_FIELDS.join(', ')})`);
  }
  const cap = narrativeCapFor(manifest);
  if (cap === null && known.has('narrative')) {
    warnings.push(`phase ${manifest.phase} manifest lists "narrative" but narrative_cap is 0, which omits it: set narrative_cap > 0 to include it`);
  }
  // The narrative is governed by the cap table, not by membership in handoff_fields.
  if (cap === null) known.delete('narrative');
  else known.add('narrative');
  const fields = HANDOFF_FIELDS.filter((name) => known.has(name));

  const latest = (key: 'goal' | 'epic_id') =>
    [...handoffs].reverse().map((h) => h[key]?.trim() ?? '').find((value) => value !== '') ?? '';
  const verdicts = new Map<string, string>();
  for (const handoff of handoffs) for (const [gate, verdict] of Object.entries(handoff.verdicts ?? {})) verdicts.set(gate, verdict);
  const sections: PhaseSection[] = handoffs.map((handoff, index) => {
    const phase = handoff.phase ?? index + 1;
    const name = handoff.phase_name ?? PHASE_NAMES[phase];
    const narrative = handoff.narrative?.trim() ?? '';
    return {
      label: `Phase ${phase}${name ? ` (${name})` : ''}`,
      artifacts_produced: known.has('artifacts_produced') ? nonEmpty(handoff.artifacts_produced) : [],
      decisions_made: known.has('decisions_made') ? nonEmpty(handoff.decisions_made) : [],
      open_risks: known.has('open_risks') ? nonEmpty(handoff.open_risks) : [],
      ...(cap !== null && narrative !== '' ? { narrative: capNarrative(narrative, cap) } : {}),
    };
  });
  return {
    fields,
    warnings,
    goal: known.has('goal') ? latest('goal') : '',
    epic_id: known.has('epic_id') ? latest('epic_id') : '',
    verdicts: known.has('verdicts') ? [...verdicts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : [],
    sections,
  };
}

/** Format the selection as a readable block (spec 000 step 2). '' when nothing was selected. */
export function assembleHandoffText(selection: ReturnType<typeof selectHandoffFields>): string {
  const head: string[] = [];
  if (selection.goal) head.push(`Goal: ${selection.goal}`);
  if (selection.epic_id) head.push(`Epic: ${selection.epic_id}`);
  if (selection.verdicts.length > 0) head.push(`Verdicts:\n${selection.verdicts.map(([gate, v]) => `- ${gate}: ${v}`).join('\n')}`);
  const body = selection.sections.map(renderSection).filter((text) => text !== '');
  if (head.length === 0 && body.length === 0) return '';
  return `## Context from prior phases\n\n${[...head, ...body].join('\n\n')}\n`;
}

function renderSection(section: PhaseSection): string {
  const parts: string[] = [];
  const list = (title: string, items: string[]) => {
    if (items.length > 0) parts.push(`${title}:\n${items.map((item) => `- ${item}`).join('\n')}`);
  };
  list('Artifacts produced', section.artifacts_produced);
  list('Decisions made', section.decisions_made);
  list('Open risks', section.open_risks);
  if (section.narrative) parts.push(`Narrative:\n${section.narrative}`);
  return parts.length === 0 ? '' : `### ${section.label}\n${parts.join('\n')}`;
}

/** Spec 000 `buildHandoffContext(handoffs, manifest)`: select -> assemble -> truncate (+ log). */
export async function buildHandoffContext(
  handoffs: readonly PhaseHandoff[],
  manifest: PhaseManifest,
  deps: HandoffContextDeps = {},
): Promise<HandoffContextResult> {
  const selection = selectHandoffFields(handoffs, manifest);
  // Handoffs are written by agents and may quote a token they saw: redacted like any file.
  const rawText = assembleHandoffText(selection);
  const assembled = deps.keepSecrets === true ? rawText : (await redactSecrets(rawText)).text;
  if (manifest.max_tokens <= 0 || assembled === '') {
    return { text: assembled, budget: null, fields: selection.fields, warnings: selection.warnings };
  }
  const tokenizer = deps.tokenizer ?? createChars4Tokenizer();
  const budget = manifest.max_tokens;
  let current = assembled;
  const { text } = fitWhole({
    render: () => ({ text: current, tokens: tokenizer.count(current) }),
    available: budget,
    // The one thing that may give way: the text, cut at a sentence or word boundary (spec 000).
    giveWay: () => {
      if (current !== assembled) return false;
      current = truncateToTokenBudget(assembled, budget, tokenizer);
      return current !== assembled;
    },
    overBudget: (tokens) => new BudgetExceededError(`the phase ${manifest.phase} handoff context needs ${tokens} tokens but max_tokens is ${budget}`),
  });
  const result = budgetResult(assembled, text, budget, tokenizer);
  if (deps.log) {
    const ts = new Date((deps.now ?? Date.now)()).toISOString();
    await deps.log(budgetLogLine({ run_id: deps.runId ?? 'unknown', phase: manifest.phase, ...result, ts }));
  }
  return { text, budget: { ...result }, fields: selection.fields, warnings: selection.warnings };
}

function nonEmpty(items: string[] | undefined): string[] {
  return (items ?? []).map((item) => item.trim()).filter((item) => item !== '');
}
