import { createHash } from 'node:crypto';
import type { Level } from '../../config/schema.js';
import type { RenderFormat } from '../../stages.js';
import type { Tokenizer } from '../../tokenize/tokenizer.js';
import { applyMaxLines, countLines, truncateWithStrategy } from '../../tokenize/truncate.js';
import { UNREADABLE_REASONS, type ReadManifestFile } from '../paths.js';
import { BudgetExceededError } from '../../errors.js';
import { getOutputFormat, type OutputFormat } from '../../assemble/formats/index.js';
import type { WorkingSetHeader } from '../../assemble/boot-header.js';
import { fitWhole, shrinkRanked, type Repairable } from '../../allocate/fit-render.js';
import { isSignificantCut } from '../../allocate/cut-to-fit.js';
import { fitFile, type LevelsPort, type TruncatePort } from './fit-file.js';
import {
  defaultTruncateStrategy,
  INSTRUCTION_ROLES,
  type TruncateStrategy,
  type WorkingSet,
  type WorkingSetFile,
  type WorkingSetRole,
} from './schema.js';

export interface WorkingSetContext {
  /** Shown in the boot header. */
  root: string;
  /** The manifest as shown in the boot header (root-relative when inside the root). */
  manifestPath: string;
  tokenizer: Tokenizer;
  format?: RenderFormat;
}

export interface WorkingSetDeps {
  /** Reads a root-relative path; throws InputError for paths leading outside the root. */
  readFile: ReadManifestFile;
  truncate?: TruncatePort;
  applyMaxLines?: (text: string, maxLines: number, strategy: TruncateStrategy) => { text: string; truncated: boolean };
  levels?: LevelsPort;
}

/** Spec 001 section 9, with `effective` and `reserved_for_response` added to the budget. */
export interface AssemblyReport {
  budget: { max: number; effective: number; reserved_for_response: number; used: number; remaining: number };
  tokenizer: string;
  included: IncludedFile[];
  excluded: Array<{ path: string; reason: string }>;
  warnings: string[];
}

export interface IncludedFile {
  path: string;
  role: WorkingSetRole;
  priority: number;
  /** Tokens of the content as included (wrapper not counted). */
  tokens: number;
  truncated: boolean;
  /** Tokens of the whole file before max_lines, level fallback or truncation. */
  original_tokens: number;
  level: Level;
}

export interface AssemblyResult {
  /** The rendered context; `tokenizer.count(context) <= budget.effective` always. */
  context: string;
  report: AssemblyReport;
}

const UNREADABLE = new Set<string>(Object.values(UNREADABLE_REASONS));
/** Spec 001 section 8: a system prompt (constitution) typically takes 2,000-4,000 tokens. */
const SYSTEM_TOKENS_GUIDELINE = 4000;

/**
 * Spec 001 section 3: files by priority (ties by path), each included whole, else at a
 * lower level or truncated by its strategy, else excluded; boot header first; every cost is
 * an exact count of rendered text, and the document goes through the engine's guarantee
 * (`fitWhole`): counted whole, the lowest-priority blocks dropped while it is over, so the
 * result never exceeds `budget.effective`.
 */
export async function assembleWorkingSet(manifest: WorkingSet, ctx: WorkingSetContext, deps: WorkingSetDeps): Promise<AssemblyResult> {
  const format = getOutputFormat(ctx.format ?? 'xml');
  const { tokenizer } = ctx;
  const effective = manifest.budget.effective;
  const warnings: string[] = [];
  const excluded: AssemblyReport['excluded'] = [];
  const files = [...manifest.files].sort((a, b) => b.priority - a.priority || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const loaded: Array<{ file: WorkingSetFile; role: WorkingSetRole; strategy: TruncateStrategy; content: string }> = [];
  for (const file of files) {
    const read = await deps.readFile(file.path);
    if (read.kind === 'missing') {
      excluded.push({ path: file.path, reason: read.reason });
      continue;
    }
    const { role, strategy } = effectiveRole(file, manifest, warnings);
    loaded.push({ file, role, strategy, content: read.content });
  }

  const constitutionFile = loaded.find((entry) => entry.role === 'system');
  const constitution = constitutionFile
    ? { path: constitutionFile.file.path, checksum: `sha256:${createHash('sha256').update(constitutionFile.content).digest('hex').slice(0, 12)}` }
    : undefined;
  const headerFields: WorkingSetHeader = {
    root: ctx.root,
    workingSet: ctx.manifestPath,
    protocol: manifest.protocol,
    effective,
    maxTokens: manifest.budget.max_tokens,
    reserved: manifest.budget.reserved_for_response,
    tokenizer: tokenizer.id,
    ...(constitution ? { constitution } : {}),
  };
  const fitDeps = { format, tokenizer, truncate: deps.truncate ?? truncateWithStrategy, ...(deps.levels ? { levels: deps.levels } : {}) };
  const cutLines = deps.applyMaxLines ?? applyMaxLines;

  const blocks: Array<{ block: string; cost: number; included: IncludedFile }> = [];
  let used = tokenizer.count(format.workingSet.document(format.workingSet.header(headerFields), []));
  const headerFits = used <= effective;
  if (!headerFits) warnings.push(`the boot header alone needs ${used} tokens, more than effective ${effective}: raise budget.effective`);

  for (const { file, role, strategy, content } of loaded) {
    if (!headerFits) {
      excluded.push({ path: file.path, reason: 'budget too small for the boot header' });
      continue;
    }
    let text = content;
    let cutByMaxLines = false;
    if (file.max_lines !== undefined) {
      if (strategy === 'never') {
        const lines = countLines(content);
        if (lines > file.max_lines) {
          excluded.push({ path: file.path, reason: `has ${lines} lines, more than max_lines ${file.max_lines}, and truncate_strategy never forbids cutting` });
          continue;
        }
      } else {
        ({ text, truncated: cutByMaxLines } = cutLines(content, file.max_lines, strategy));
      }
    }
    const fit = await fitFile({ path: file.path, role, strategy, content: text, original: content, cutByMaxLines, remaining: effective - used }, fitDeps);
    if (fit.kind === 'none') {
      excluded.push({ path: file.path, reason: `${fit.reason} (priority ${file.priority})` });
      continue;
    }
    used += fit.cost;
    const originalTokens = tokenizer.count(content);
    blocks.push({
      block: fit.block,
      cost: fit.cost,
      included: { path: file.path, role, priority: file.priority, tokens: fit.contentTokens, truncated: fit.truncated, original_tokens: originalTokens, level: fit.level },
    });
  }

  const placed: Repairable[] = blocks.map((b) => ({ candidate: { path: b.included.path, options: [{ cost: b.cost }] }, choice: 0 }));
  const kept = () => blocks.filter((_, i) => placed[i]!.choice >= 0);
  const dropped = new Set<string>();
  const fitted = headerFits
    ? fitWhole({
        render: () => {
          const text = render(format, headerFields, kept(), constitution);
          return { text, tokens: tokenizer.count(text) };
        },
        available: effective,
        // One block per round, the lowest-priority first, and the whole counted again (spec 001).
        giveWay: () => shrinkRanked(placed, 1, 'drop', dropped) > 0,
        // Not reached: the header alone fits, and every block can be dropped.
        overBudget: (tokens) => new BudgetExceededError(`the working set needs ${tokens} tokens but ${effective} are effective: raise budget.effective`),
      })
    : { text: '', tokens: 0 };
  for (const path of dropped) excluded.push({ path, reason: 'over budget once the whole context was counted' });
  const context = fitted.text;
  const rendered = fitted.tokens;

  const rank = new Map(files.map((file, index) => [file.path, index]));
  excluded.sort((a, b) => (rank.get(a.path) ?? 0) - (rank.get(b.path) ?? 0));
  return { context, report: buildReport(manifest, tokenizer, rendered, kept().map((b) => b.included), excluded, warnings) };
}

function effectiveRole(file: WorkingSetFile, manifest: WorkingSet, warnings: string[]): { role: WorkingSetRole; strategy: TruncateStrategy } {
  const isInstruction = (INSTRUCTION_ROLES as readonly string[]).includes(file.role);
  if (!isInstruction || (manifest.trusted_roles as readonly string[]).includes(file.role)) {
    return { role: file.role, strategy: file.truncate_strategy };
  }
  warnings.push(
    `${file.path}: role ${file.role} is not trusted, rendered as context (file content is data; add "trusted_roles: [${file.role}]" to the manifest if this file is yours)`,
  );
  return { role: 'context', strategy: file.strategyExplicit ? file.truncate_strategy : defaultTruncateStrategy('context', file.path) };
}

function render(
  format: OutputFormat,
  fields: WorkingSetHeader,
  blocks: Array<{ block: string; included: IncludedFile }>,
  constitution: WorkingSetHeader['constitution'],
): string {
  // The header names the constitution only when that file made it into the context.
  const isIncluded = constitution !== undefined && blocks.some((b) => b.included.path === constitution.path);
  const { constitution: _dropped, ...rest } = fields;
  const shape = format.workingSet;
  return shape.document(shape.header(isIncluded ? fields : rest), blocks.map((b) => b.block));
}

function buildReport(
  manifest: WorkingSet,
  tokenizer: Tokenizer,
  used: number,
  included: IncludedFile[],
  excluded: AssemblyReport['excluded'],
  warnings: string[],
): AssemblyReport {
  const unreadable = excluded.filter((entry) => UNREADABLE.has(entry.reason)).length;
  const overBudget = excluded.length - unreadable;
  const all = [...warnings];
  if (overBudget > 0) all.push(`${overBudget} file${overBudget === 1 ? '' : 's'} excluded due to budget`);
  if (unreadable > 0) all.push(`${unreadable} file${unreadable === 1 ? '' : 's'} excluded: not found, not a regular file or binary`);
  const systemTokens = included.filter((file) => file.role === 'system').reduce((sum, file) => sum + file.tokens, 0);
  if (systemTokens > SYSTEM_TOKENS_GUIDELINE) {
    all.push(`system files take ${systemTokens} tokens, above the ${SYSTEM_TOKENS_GUIDELINE} of spec 001's guideline: keep the constitution small, it is always included`);
  }
  for (const file of included) {
    if (isSignificantCut(file.tokens, file.original_tokens)) {
      all.push(`${file.path}: cut significantly (${file.tokens} of ${file.original_tokens} tokens kept, ${file.truncated ? 'truncated' : `level ${file.level}`})`);
    }
  }
  return {
    budget: {
      max: manifest.budget.max_tokens,
      effective: manifest.budget.effective,
      reserved_for_response: manifest.budget.reserved_for_response,
      used,
      remaining: manifest.budget.effective - used,
    },
    tokenizer: tokenizer.id,
    included,
    excluded,
    warnings: all,
  };
}
