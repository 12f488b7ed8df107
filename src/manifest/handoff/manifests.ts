import { join } from 'node:path';
import { parseYamlData } from '../../util/yaml-data.js';
import { MAX_INPUT_FILE_BYTES, readInsideRoot } from '../../security/read-guard.js';
import { z } from 'zod';
import { ConfigError, UsageError } from '../../errors.js';
import { issuesToConfigError } from '../zod-issues.js';

/**
 * Spec 000 ("Context Assembly Interface Contract") section 1: what context a phase needs
 * and how much room it gets.
 */
export interface PhaseManifest {
  phase: number;
  /** JSON keys of PhaseHandoff to carry forward; empty = everything (no manifest). */
  handoff_fields: readonly string[];
  /** Max narrative chars; 0 means omit (fields set) or the 1000-char default (fields empty). */
  narrative_cap: number;
  /** Token budget of the assembled context; 0 = unlimited. */
  max_tokens: number;
}

/** The handoff a phase leaves for the next ones. Every field may be missing. */
export interface PhaseHandoff {
  /** Phase that wrote it (from the file name when the file does not say). */
  phase?: number;
  phase_name?: string;
  goal?: string;
  epic_id?: string;
  verdicts?: Record<string, string>;
  artifacts_produced?: string[];
  decisions_made?: string[];
  open_risks?: string[];
  narrative?: string;
}

/** The field names a manifest may list, in the order the context block renders them. */
export const HANDOFF_FIELDS = ['goal', 'epic_id', 'verdicts', 'artifacts_produced', 'decisions_made', 'open_risks', 'narrative'] as const;
export type HandoffField = (typeof HANDOFF_FIELDS)[number];

/** Narrative chars when no manifest restricts fields and narrative_cap is 0 (backward compat). */
export const DEFAULT_NARRATIVE_CAP = 1000;

/** Spec 000 default manifests, exactly. */
export const DEFAULT_MANIFESTS: Readonly<Record<number, PhaseManifest>> = Object.freeze({
  // Phase 1 (discovery): no prior context, first phase in the pipeline.
  1: Object.freeze({ phase: 1, handoff_fields: Object.freeze([]), narrative_cap: 0, max_tokens: 0 }),
  // Phase 2 (implementation): goal, plan decisions and risk awareness.
  2: Object.freeze({
    phase: 2,
    handoff_fields: Object.freeze(['goal', 'epic_id', 'verdicts', 'decisions_made', 'open_risks']),
    narrative_cap: 500,
    max_tokens: 2500,
  }),
  // Phase 3 (validation): goal, verdicts and what was built.
  3: Object.freeze({
    phase: 3,
    handoff_fields: Object.freeze(['goal', 'epic_id', 'verdicts', 'artifacts_produced']),
    narrative_cap: 1000,
    max_tokens: 2500,
  }),
});

/** Names of the phases of spec 000's pipeline, for headings. */
export const PHASE_NAMES: Readonly<Record<number, string>> = { 1: 'discovery', 2: 'implementation', 3: 'validation' };

/** A partial manifest from the overrides file; unset keys keep the default's value. */
export type PhaseManifestOverride = Partial<Omit<PhaseManifest, 'phase'>>;

/**
 * The manifest of a phase: its default (or, for a phase without one, the permissive manifest
 * of spec 000's backward-compatibility rule: all fields, narrative default, unlimited tokens)
 * with any override for that phase laid over it key by key.
 */
export function resolveManifest(phase: number, overrides: Readonly<Record<number, PhaseManifestOverride>> = {}): PhaseManifest {
  if (!Number.isInteger(phase) || phase < 1) throw new UsageError(`phase must be a whole number >= 1, got ${phase}`);
  const base = DEFAULT_MANIFESTS[phase] ?? permissiveManifest(phase);
  const override = overrides[phase] ?? {};
  return {
    phase,
    handoff_fields: [...(override.handoff_fields ?? base.handoff_fields)],
    narrative_cap: override.narrative_cap ?? base.narrative_cap,
    max_tokens: override.max_tokens ?? base.max_tokens,
  };
}

/** All fields, narrative_cap 0 (= the 1000-char default), max_tokens 0 (= unlimited). */
export function permissiveManifest(phase: number): PhaseManifest {
  return { phase, handoff_fields: [], narrative_cap: 0, max_tokens: 0 };
}

const OverrideSchema = z.strictObject({
  handoff_fields: z.array(z.string()).optional(),
  narrative_cap: z.number().int().nonnegative().optional(),
  max_tokens: z.number().int().nonnegative().optional(),
});

/** `.aiwg/rag/phase-manifests.yaml`: `phases: { <N>: { handoff_fields, narrative_cap, max_tokens } }`. */
export const PhaseManifestsFileSchema = z.strictObject({
  phases: z.record(z.string().regex(/^[1-9]\d*$/, 'phase keys are whole numbers >= 1'), OverrideSchema).default({}),
});

export const PHASE_MANIFESTS_FILE = join('.aiwg', 'rag', 'phase-manifests.yaml');

/** Parse the overrides file text; `file` names it in errors. */
export function parsePhaseManifestOverrides(text: string, file: string): Record<number, PhaseManifestOverride> {
  const parsed = PhaseManifestsFileSchema.safeParse(parseYamlData(text, file, { uniqueKeys: false }) ?? {}, { reportInput: true });
  if (!parsed.success) throw issuesToConfigError(file, parsed.error.issues);
  const result: Record<number, PhaseManifestOverride> = {};
  for (const [key, value] of Object.entries(parsed.data.phases)) result[Number(key)] = value;
  return result;
}

/** Read `<root>/.aiwg/rag/phase-manifests.yaml` through the read-path guard; none means no overrides. */
export async function loadPhaseManifestOverrides(root: string): Promise<Record<number, PhaseManifestOverride>> {
  const file = join(root, PHASE_MANIFESTS_FILE);
  const read = await readInsideRoot(root, file, { maxBytes: MAX_INPUT_FILE_BYTES });
  if (read.kind === 'refused') {
    if (read.code === 'not-found') return {};
    throw new ConfigError('', `${read.reason}: make it a regular YAML file inside the repository, or remove it`, { file });
  }
  return parsePhaseManifestOverrides(read.file.bytes.toString('utf8'), file);
}
