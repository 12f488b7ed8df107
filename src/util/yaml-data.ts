import { parseDocument, type Document, type YAMLError } from 'yaml';
import { ConfigError } from '../errors.js';

/** Alias expansions a config or manifest may use; real files use a handful. */
export const MAX_YAML_ALIASES = 100;

/**
 * Parse a YAML file of ours (config, working set, phase manifests) into plain data, or throw a
 * one-line ConfigError naming the file and position. Never a stack trace, never the file's
 * lines: yaml's pretty messages quote the source, so only their first line is kept.
 */
export function parseYamlData(text: string, file: string, options: { uniqueKeys?: boolean; prefix?: string } = {}): unknown {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: options.uniqueKeys ?? true });
  const [error] = doc.errors;
  if (error) {
    const prefix = options.prefix ?? 'not valid YAML: ';
    throw new ConfigError('', `${prefix}${describeYamlError(error)}: fix the YAML (indentation, quotes, brackets)`, { file, cause: error });
  }
  return yamlToJs(doc, file);
}

/** "syntax error at line 3, column 5: <what>", with no source text. */
export function describeYamlError(error: YAMLError): string {
  const where = error.linePos ? ` at line ${error.linePos[0].line}, column ${error.linePos[0].col}` : '';
  const what = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '').replace(/:$/, '');
  return `syntax error${where}: ${what}`;
}

/**
 * A parsed document as data. `maxAliasCount` stops alias bombs ("billion laughs"): yaml throws
 * a ReferenceError past it, which becomes a config error naming the file.
 */
export function yamlToJs(doc: Document, file: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    const isAliasBomb = /alias/i.test(error instanceof Error ? error.message : '');
    const message = isAliasBomb
      ? `too many YAML alias expansions (over ${MAX_YAML_ALIASES}; an alias bomb?): write the values out instead of using *aliases`
      : 'the YAML cannot be read as data: fix the YAML';
    throw new ConfigError('', message, { file, cause: error });
  }
}
