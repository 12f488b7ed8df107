import { isMap, isSeq, parseDocument, type Document } from 'yaml';
import { ConfigError, InputError } from '../../errors.js';
import { describeYamlError, yamlToJs } from '../../util/yaml-data.js';
import { manifestPathProblem, normalizeManifestPath } from '../paths.js';
import { parseWorkingSet, type TruncateStrategy, type WorkingSetRole } from './schema.js';

/**
 * Spec 001 section 6: model-initiated updates of `working-set.yml`, applied to the YAML
 * document (comments, key order and formatting kept) and re-validated before they are
 * written. Pure: text in, text and the event out; the caller writes and logs.
 */
export type WorkingSetAction = 'add_to_working_set' | 'remove_from_working_set' | 'adjust_priority';
export type WorkingSetActor = 'model' | 'orchestrator' | 'user';

/** One line of the working-set event log. */
export interface WorkingSetEvent {
  ts: string;
  action: WorkingSetAction;
  path: string;
  /** Priority after the update (absent for removals). */
  priority?: number;
  /** Priority before the update (absent for additions). */
  previous_priority?: number;
  role?: WorkingSetRole;
  why: string;
  by: WorkingSetActor;
  /** The manifest that changed, root-relative when inside the root. */
  manifest: string;
}

export type WorkingSetUpdate =
  | {
      action: 'add_to_working_set';
      path: string;
      priority: number;
      role?: WorkingSetRole;
      truncate_strategy?: TruncateStrategy;
      max_lines?: number;
      why: string;
    }
  | { action: 'remove_from_working_set'; path: string; why: string }
  | { action: 'adjust_priority'; path: string; priority: number; why: string };

export interface UpdateOptions {
  /** Manifest path for error messages and the event. */
  file: string;
  nowIso: string;
  by: WorkingSetActor;
}

/** Apply one update to the manifest text; throws ConfigError/InputError naming the problem. */
export function applyWorkingSetUpdate(text: string, update: WorkingSetUpdate, options: UpdateOptions): { text: string; event: WorkingSetEvent } {
  if (update.why.trim() === '') throw new InputError('every working-set update needs a reason: pass --why "..." (spec 001: all calls require why)');
  const path = normalizeManifestPath(update.path);
  const problem = update.action === 'remove_from_working_set' ? null : manifestPathProblem(update.path);
  if (problem) throw new InputError(`cannot ${update.action.replace(/_/g, ' ')}: path ${problem}`);
  const doc = parseDocument(text);
  const yamlError = doc.errors[0];
  if (yamlError) throw new ConfigError('', `not valid YAML: ${describeYamlError(yamlError)}: fix the YAML (indentation, quotes, brackets)`, { file: options.file });
  // Refuses alias bombs before the document is edited or printed.
  yamlToJs(doc, options.file);
  // Only the result is validated: removing the entry that makes a manifest invalid must work.

  const index = findEntry(doc, path);
  const base = { ts: options.nowIso, action: update.action, path, why: update.why, by: options.by, manifest: options.file };
  let event: WorkingSetEvent;
  switch (update.action) {
    case 'add_to_working_set': {
      if (index !== -1) {
        throw new InputError(`${path} is already in the working set (files.${index}): use "aiwg working-set priority ${path} --priority N --why ..." to change it`);
      }
      const entry: Record<string, unknown> = { path, priority: update.priority };
      if (update.role) entry.role = update.role;
      if (update.truncate_strategy) entry.truncate_strategy = update.truncate_strategy;
      if (update.max_lines !== undefined) entry.max_lines = update.max_lines;
      entry.why = update.why;
      if (!isSeq(doc.get('files'))) doc.set('files', doc.createNode([]));
      doc.addIn(['files'], doc.createNode(entry));
      event = { ...base, priority: update.priority, ...(update.role ? { role: update.role } : {}) };
      break;
    }
    case 'remove_from_working_set': {
      if (index === -1) throw new InputError(`${path} is not in the working set ${options.file}: nothing to remove`);
      const previous = numberAt(doc, ['files', index, 'priority']);
      doc.deleteIn(['files', index]);
      event = { ...base, ...(previous !== undefined ? { previous_priority: previous } : {}) };
      break;
    }
    case 'adjust_priority': {
      if (index === -1) throw new InputError(`${path} is not in the working set ${options.file}: add it with "aiwg working-set add ${path} --why ..."`);
      const previous = numberAt(doc, ['files', index, 'priority']);
      doc.setIn(['files', index, 'priority'], update.priority);
      event = { ...base, priority: update.priority, ...(previous !== undefined ? { previous_priority: previous } : {}) };
      break;
    }
  }
  try {
    doc.setIn(['metadata', 'last_updated'], options.nowIso);
    doc.setIn(['metadata', 'assembled_by'], options.by);
  } catch (error) {
    // yaml refuses to edit through a scalar or an alias: the manifest's shape, not a bug.
    throw new ConfigError('metadata', 'is not a plain mapping, so the update cannot record its time: write metadata as a mapping of keys', { file: options.file, cause: error });
  }
  const updated = doc.toString(toStringOptionsLike(text));
  parseWorkingSet(updated, options.file);
  return { text: updated, event };
}

/**
 * Keep the author's layout where the yaml printer has a choice: `[a, b]` stays unpadded and a
 * sequence written flush with its key (`files:\n- path`) stays flush. Comments and blank lines
 * are kept by the Document API itself; only the spacing before an inline comment is normalised.
 */
function toStringOptionsLike(source: string): { flowCollectionPadding: boolean; indentSeq: boolean } {
  return {
    flowCollectionPadding: /\[ \S/.test(source) && !/\[\S/.test(source),
    indentSeq: !/^[A-Za-z_][\w-]*:[ \t]*(#.*)?\r?\n-[ \t]/m.test(source),
  };
}

/** Index of the entry whose normalized path equals `path`, or -1. */
function findEntry(doc: Document, path: string): number {
  const files = doc.get('files');
  if (!isSeq(files)) return -1;
  return files.items.findIndex((item) => {
    if (!isMap(item)) return false;
    const value = item.get('path');
    return typeof value === 'string' && normalizeManifestPath(value) === path;
  });
}

function numberAt(doc: Document, path: Array<string | number>): number | undefined {
  const value = doc.getIn(path);
  return typeof value === 'number' ? value : undefined;
}
