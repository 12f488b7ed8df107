import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Config } from '../../config/schema.js';
import { createTokenizer, type Tokenizer } from '../../tokenize/tokenizer.js';
import { appendBudgetLog } from '../../record/budget-log.js';
import { buildHandoffContext, type HandoffContextResult } from './build-context.js';
import { loadPhaseManifestOverrides, resolveManifest, type PhaseManifest } from './manifests.js';
import { readPriorHandoffs } from './read-handoffs.js';

/** Default handoff directory under the root. */
export const DEFAULT_HANDOFF_DIR = join('.aiwg', 'rag', 'handoffs');

export interface PhaseContextOptions {
  root: string;
  config: Config;
  /** The phase about to run; handoffs of phases 1..phase-1 are read. */
  phase: number;
  /** Directory of `phase-<N>.json` files; `<root>/.aiwg/rag/handoffs` when absent. */
  dir?: string;
  /** Append the budget line to `.aiwg/rag/context-budget-log.jsonl`. */
  log: boolean;
  /** The tokenizer of `config.tokenizer`, when the caller holds one already. */
  tokenizer?: Tokenizer;
  /** The run (session) id of the log line, so one session's phases group together; a new UUID when absent. */
  runId?: string;
}

export interface PhaseContext {
  phase: number;
  manifest: PhaseManifest;
  /** The directory read. */
  dir: string;
  handoffs: number;
  result: HandoffContextResult;
}

/**
 * `aiwg handoff-context` without the printing: the phase's manifest (with the root's
 * overrides), the prior handoffs, the budgeted context and its log line. The CLI command and
 * the MCP `handoff_context` tool both call this.
 */
export async function buildPhaseContext(options: PhaseContextOptions): Promise<PhaseContext> {
  const { root, config, phase } = options;
  const dir = options.dir ?? join(root, DEFAULT_HANDOFF_DIR);
  const manifest = resolveManifest(phase, await loadPhaseManifestOverrides(root));
  const handoffs = await readPriorHandoffs(dir, phase, { root });
  const result = await buildHandoffContext(handoffs, manifest, {
    tokenizer: options.tokenizer ?? (await createTokenizer(config.tokenizer)),
    runId: options.runId ?? randomUUID(),
    now: () => Date.now(),
    keepSecrets: config.collect.include_secrets,
    ...(options.log ? { log: (line) => appendBudgetLog(root, line) } : {}),
  });
  return { phase, manifest, dir, handoffs: handoffs.length, result };
}
