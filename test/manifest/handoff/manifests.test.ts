import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_MANIFESTS,
  loadPhaseManifestOverrides,
  parsePhaseManifestOverrides,
  permissiveManifest,
  resolveManifest,
} from '../../../src/manifest/handoff/manifests.js';
import { ConfigError, UsageError } from '../../../src/errors.js';
import { makeTempDir, type Fixture } from '../../helpers/fixture-repo.js';

describe('DEFAULT_MANIFESTS (spec 000 section 1, exactly)', () => {
  it.each([
    [1, [], 0, 0],
    [2, ['goal', 'epic_id', 'verdicts', 'decisions_made', 'open_risks'], 500, 2500],
    [3, ['goal', 'epic_id', 'verdicts', 'artifacts_produced'], 1000, 2500],
  ])('phase %i: fields %j, narrative_cap %i, max_tokens %i', (phase, fields, cap, max) => {
    expect(DEFAULT_MANIFESTS[phase]).toEqual({ phase, handoff_fields: fields, narrative_cap: cap, max_tokens: max });
    expect(resolveManifest(phase)).toEqual({ phase, handoff_fields: fields, narrative_cap: cap, max_tokens: max });
  });

  it('is frozen so no caller can change the defaults for everyone', () => {
    expect(Object.isFrozen(DEFAULT_MANIFESTS)).toBe(true);
    expect(Object.isFrozen(DEFAULT_MANIFESTS[2])).toBe(true);
    expect(Object.isFrozen(DEFAULT_MANIFESTS[2]?.handoff_fields)).toBe(true);
  });
});

describe('resolveManifest', () => {
  it.each([4, 7, 100])('phase %i has no default: the permissive manifest (all fields, default narrative, unlimited)', (phase) => {
    expect(resolveManifest(phase)).toEqual({ phase, handoff_fields: [], narrative_cap: 0, max_tokens: 0 });
    expect(resolveManifest(phase)).toEqual(permissiveManifest(phase));
  });

  it.each([
    ['narrative_cap only', 2, { narrative_cap: 800 }, { handoff_fields: ['goal', 'epic_id', 'verdicts', 'decisions_made', 'open_risks'], narrative_cap: 800, max_tokens: 2500 }],
    ['fields only', 3, { handoff_fields: ['goal'] }, { handoff_fields: ['goal'], narrative_cap: 1000, max_tokens: 2500 }],
    ['an unknown phase', 5, { max_tokens: 900 }, { handoff_fields: [], narrative_cap: 0, max_tokens: 900 }],
    ['max_tokens 0 = unlimited', 2, { max_tokens: 0 }, { handoff_fields: ['goal', 'epic_id', 'verdicts', 'decisions_made', 'open_risks'], narrative_cap: 500, max_tokens: 0 }],
  ])('an override of %s is laid over the default key by key', (_name, phase, override, expected) => {
    expect(resolveManifest(phase, { [phase]: override })).toEqual({ phase, ...expected });
  });

  it('an override for another phase does not apply', () => {
    expect(resolveManifest(2, { 3: { narrative_cap: 1 } })).toEqual(DEFAULT_MANIFESTS[2]);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses phase %d with a usage error', (phase) => {
    expect(() => resolveManifest(phase)).toThrow(UsageError);
  });
});

describe('phase manifest overrides file (.aiwg/rag/phase-manifests.yaml)', () => {
  let fixture: Fixture | undefined;
  afterEach(() => fixture?.cleanup());

  it('parses phases keyed by number', () => {
    const text = 'phases:\n  2:\n    narrative_cap: 800\n  4:\n    handoff_fields: [goal, verdicts]\n    max_tokens: 1500\n';
    expect(parsePhaseManifestOverrides(text, 'f.yaml')).toEqual({
      2: { narrative_cap: 800 },
      4: { handoff_fields: ['goal', 'verdicts'], max_tokens: 1500 },
    });
  });

  it('keeps unknown field names (they become warnings when the context is built)', () => {
    expect(parsePhaseManifestOverrides('phases:\n  2:\n    handoff_fields: [goal, golas]\n', 'f.yaml')).toEqual({
      2: { handoff_fields: ['goal', 'golas'] },
    });
  });

  it.each([
    ['an unknown key', 'phases:\n  2:\n    narative_cap: 800\n', /phases\.2: unknown key "narative_cap"/],
    ['a negative cap', 'phases:\n  2:\n    narrative_cap: -1\n', /phases\.2\.narrative_cap: -1 is too small/],
    ['a phase key that is not a number', 'phases:\n  two:\n    max_tokens: 1\n', /phases\.two/],
    ['a top-level typo', 'phase:\n  2: {}\n', /unknown key "phase"/],
    ['broken YAML', 'phases: [\n', /not valid YAML/],
  ])('refuses %s with the file and key path', (_name, text, message) => {
    let error: unknown;
    try {
      parsePhaseManifestOverrides(text, '/r/.aiwg/rag/phase-manifests.yaml');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('/r/.aiwg/rag/phase-manifests.yaml');
    expect((error as Error).message).toMatch(message);
  });

  it('loads the file under the root, and no file means no overrides', async () => {
    fixture = makeTempDir();
    expect(await loadPhaseManifestOverrides(fixture.root)).toEqual({});
    mkdirSync(join(fixture.root, '.aiwg', 'rag'), { recursive: true });
    writeFileSync(join(fixture.root, '.aiwg', 'rag', 'phase-manifests.yaml'), 'phases:\n  3:\n    max_tokens: 100\n');
    expect(await loadPhaseManifestOverrides(fixture.root)).toEqual({ 3: { max_tokens: 100 } });
  });
});
