import { randomUUID } from 'node:crypto';
import type { Config } from '../../config/schema.js';
import type { RenderFormat } from '../../stages.js';
import type { Reporter, RunContext, RuntimeEnv } from '../../types.js';
import { createTokenizer, type Tokenizer } from '../../tokenize/tokenizer.js';
import { createJsonlAppender } from '../fs-io.js';
import { createRootReader } from '../paths.js';
import { assembleWorkingSet, type AssemblyResult } from './assemble.js';
import { createLevelsPort } from './levels-port.js';
import { displayManifestPath, loadWorkingSet, resolveWorkingSetEventsPath } from './manifest-file.js';
import { assemblyEvent } from './report.js';
import { runConversationBuild } from '../../conversation/run.js';
import type { WorkingSet, WorkingSetFile } from './schema.js';

export interface AssembleFileOptions {
  root: string;
  config: Config;
  /** Absolute path of the manifest. */
  file: string;
  format: RenderFormat;
  /** Fall back to summary levels for files that do not fit whole (else truncate them). */
  useLevels: boolean;
  /** Append the "assembled" event to `.aiwg/rag/working-set-events.jsonl`. */
  log: boolean;
  reporter: Reporter;
  /** The tokenizer of `config.tokenizer`, when the caller holds one already. */
  tokenizer?: Tokenizer;
  nowMs?: number;
  /** The caller's environment (RunContext.env: the summarizer's LLM key). */
  env?: RuntimeEnv;
  /** The run (session) id logged with the event; a new UUID when absent. */
  runId?: string;
}

/**
 * `aiwg assemble` without the printing: load the manifest, assemble it within its budget
 * (files read through the root reader, so nothing outside the root), log the event.
 * The CLI command and the MCP `assemble` tool both call this.
 */
export async function assembleWorkingSetFile(options: AssembleFileOptions): Promise<AssemblyResult & { manifestPath: string }> {
  const { root, config, file, format } = options;
  const manifest = await loadWorkingSet(file);
  const tokenizer = options.tokenizer ?? (await createTokenizer(config.tokenizer));
  const runContext: RunContext = { config, tokenizer, reporter: options.reporter, nowMs: options.nowMs ?? Date.now(), warnings: [], ...(options.env ? { env: options.env } : {}) };
  const useLevels = options.useLevels && config.summarization.enabled;
  const manifestPath = displayManifestPath(root, file);
  const rootReader = createRootReader(root, { redactSecrets: !config.collect.include_secrets });
  const slot = manifest.conversation ? await conversationSlot(manifest.conversation, { root, config, manifestPath, ...(options.env ? { env: options.env } : {}), ...(options.nowMs !== undefined ? { nowMs: options.nowMs } : {}) }) : undefined;
  const result = await assembleWorkingSet(
    slot ? { ...manifest, files: [...manifest.files, slot.entry] } : manifest,
    { root, manifestPath, tokenizer, format },
    {
      readFile: slot ? async (path) => (path === slot.entry.path ? { kind: 'ok', content: slot.text } : rootReader(path)) : rootReader,
      ...(useLevels ? { levels: createLevelsPort({ root, config, ctx: runContext }) } : {}),
    },
  );
  if (slot) {
    for (const warning of slot.warnings) result.report.warnings.push(`conversation ${slot.entry.path}: ${warning}`);
  }
  if (options.log) await createJsonlAppender(resolveWorkingSetEventsPath(root), { root })(assemblyEvent(result.report, manifestPath, runContext.nowMs, options.runId ?? randomUUID()));
  return { ...result, manifestPath };
}

/**
 * Spec 001 section 8's conversation-history slot: the session's conversation, built by the
 * conversation builder (`runConversationBuild`: read-path guard, redaction, rolling summary
 * resumed from the session record, tool outputs out of band) as text within the slot's
 * `max_tokens`, placed as one context entry named by the session path; `truncate_strategy:
 * start` keeps the recent end if the whole context is short of room.
 */
async function conversationSlot(
  slot: NonNullable<WorkingSet['conversation']>,
  options: { root: string; config: Config; manifestPath: string; env?: RuntimeEnv; nowMs?: number },
): Promise<{ entry: WorkingSetFile; text: string; warnings: string[] }> {
  const built = await runConversationBuild({
    root: options.root,
    session: slot.session,
    sessionLabel: `${slot.session} (conversation.session of ${options.manifestPath})`,
    config: options.config,
    format: 'text',
    maxTokens: slot.max_tokens,
    ...(options.env ? { env: options.env } : {}),
    ...(options.nowMs !== undefined ? { now: () => options.nowMs! } : {}),
  });
  return {
    entry: { path: slot.session, priority: slot.priority, role: 'context', truncate_strategy: 'start', strategyExplicit: true, why: 'conversation history' },
    text: built.serialized,
    warnings: built.report.warnings,
  };
}
