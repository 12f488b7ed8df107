import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, defaultConfig } from '../../src/config/schema.js';
import { knownKeysAt } from '../../src/config/validate.js';

/**
 * schemas/rag-context-management.yaml and the zod schema (src/config/schema.ts) must not drift:
 * same keys, same defaults, and the same verdict on every probe value at every leaf.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** A JSON Schema node as parsed from YAML: untyped data walked by key. */
type SchemaNode = { [key: string]: unknown };
const document = parse(readFileSync(`${REPO}schemas/rag-context-management.yaml`, 'utf8')) as SchemaNode;
const defaults = defaultConfig();
const ajv = new Ajv2020({ allErrors: true });
const validate = ajv.compile(document);

type Path = string[];

/** A node with its `$ref` resolved and merged with the keywords beside it. */
function resolveNode(node: SchemaNode | undefined): SchemaNode | undefined {
  if (!node || typeof node.$ref !== 'string') return node;
  const target = resolveNode(node.$ref.replace(/^#\//, '').split('/').reduce<SchemaNode | undefined>((n, key) => n?.[key] as SchemaNode | undefined, document));
  const { $ref: _ref, ...rest } = node;
  const props = { ...((target?.properties as SchemaNode) ?? {}) };
  for (const [key, value] of Object.entries((rest.properties as SchemaNode) ?? {})) props[key] = { ...(props[key] as SchemaNode), ...(value as SchemaNode) };
  return { ...target, ...rest, properties: props };
}

function nodeAt(path: Path): SchemaNode | undefined {
  let node = resolveNode(document);
  for (const key of path) node = resolveNode((node?.properties as SchemaNode | undefined)?.[key] as SchemaNode | undefined);
  return node;
}

function valueAt(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((v, key) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), value);
}

function withValue(path: Path, value: unknown): unknown {
  const copy = structuredClone(defaults) as unknown as Record<string, unknown>;
  const parent = valueAt(copy, path.slice(0, -1)) as Record<string, unknown>;
  parent[path.at(-1) ?? ''] = value;
  return copy;
}

const isObjectPath = (path: Path) => knownKeysAt(path).length > 0 && !Array.isArray(valueAt(defaults, path));

/** Every object path and every leaf path of the zod schema. */
function walk(path: Path = [], objects: Path[] = [], leaves: Path[] = []): { objects: Path[]; leaves: Path[] } {
  objects.push(path);
  for (const key of knownKeysAt(path)) {
    const child = [...path, key];
    if (isObjectPath(child)) walk(child, objects, leaves);
    else leaves.push(child);
  }
  return { objects, leaves };
}
const { objects, leaves } = walk();
const name = (path: Path) => path.join('.') || '(root)';

/** Values tried at every leaf: both schemas must accept or reject each one alike. */
const PROBES: unknown[] = [
  null, true, false, 'true', '5', '', 'x', '1.0.0', '1.0', 'https://example.com/v1', 'http://localhost:11434/v1', 'ftp://example.org', 'not a url',
  'o200k', 'cl100k', 'chars4', 'truncate', 'summarize', 'prioritize', 'error', 'keyword', 'semantic', 'hybrid', 'optimal', 'greedy', 'bogus',
  -2, -1, -0.5, 0, 0.5, 1, 1.5, 2, 7, 100, 100.5, 101, 1_000_000,
  [], ['x'], [1], ['primary', 'supporting'], {},
  [{ glob: '*.md', category: 'documentation' }], [{ glob: '', category: 'documentation' }], [{ glob: 'x', category: 'bogus' }], [{ glob: 'x' }],
  [{ glob: 'x', category: 'config', extra: 1 }],
];

describe('schemas/rag-context-management.yaml', () => {
  it('is a JSON Schema 2020-12 document that ajv compiles in strict mode', () => {
    expect(document.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(typeof validate).toBe('function');
  });

  it('walks the whole zod schema', () => {
    expect(leaves.length).toBeGreaterThan(50);
    expect(objects.map(name)).toContain('relevance_scoring.factors.file_type.priorities');
  });

  it.each(objects.map((p) => [name(p), p] as const))('has the same keys as zod at %s, closed to others', (_n, path) => {
    const node = nodeAt(path);
    expect(Object.keys((node?.properties as SchemaNode) ?? {}).sort()).toEqual([...knownKeysAt(path)].sort());
    expect(node?.additionalProperties === false || node?.unevaluatedProperties === false).toBe(true);
  });

  it.each(leaves.map((p) => [name(p), p] as const))('has the zod default at %s', (_n, path) => {
    expect(nodeAt(path)?.default).toEqual(valueAt(defaults, path));
  });

  it.each(leaves.map((p) => [name(p), p] as const))('accepts and rejects the same values as zod at %s', (_n, path) => {
    const disagreements = PROBES.filter((probe) => {
      const input = withValue(path, probe);
      return ConfigSchema.safeParse(input).success !== validate(input);
    });
    expect(disagreements).toEqual([]);
  });

  it('validates the defaults', () => {
    expect(validate(defaults), JSON.stringify(validate.errors)).toBe(true);
  });

  it('validates the example config file, which holds exactly the defaults', () => {
    const example = parse(readFileSync(`${REPO}.aiwg/rag/config.yaml`, 'utf8')) as unknown;
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    expect(ConfigSchema.parse(example)).toEqual(defaults);
  });
});
