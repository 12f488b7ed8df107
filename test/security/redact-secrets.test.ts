import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCollectStage } from '../../src/collect/collect-files.js';
import { performance } from 'node:perf_hooks';
import { secretLintProfiler } from '@secretlint/profiler';
import { redactSecrets } from '../../src/security/redact-secrets.js';
import { OWN_SECRET_RULES } from '../../src/security/secret-rules.js';
import { CREDENTIAL_FILES, FILES_WITH_SECRETS } from '../helpers/secret-fixture.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { makeFixtureRepo, type Fixture } from '../helpers/fixture-repo.js';
import { testContext } from '../helpers/fakes.js';

/** Fake credentials, built by concatenation so this file itself never holds one. */
const FAKE = {
  aws: 'AKIA' + 'ABCDEFGHIJKLMNOP',
  github: 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
  slack: 'xoxb-' + '123456789012-abcdefghij',
  openai: 'sk-' + 'proj-' + 'abcdefghijklmnopqrstuvwxyz0123456789',
  google: 'AIza' + 'SyA1234567890abcdefghijklmnopqrstuv',
  stripe: 'sk_live_' + 'abcdefghijklmnopqrstuvwx',
  npm: 'npm_' + 'abcdefghijklmnopqrstuvwxyz0123456789',
};

describe('redactSecrets', () => {
  it.each([
    [FAKE.aws, 'aws-access-key-id'],
    [FAKE.github, 'github-token'],
    [FAKE.slack, 'slack-token'],
    [FAKE.openai, 'openai-key'],
    [FAKE.google, 'google-api-key'],
    [FAKE.stripe, 'stripe-key'],
    [FAKE.npm, 'npm-access-token'],
  ])('replaces %s with a marker naming its kind', async (secret, kind) => {
    const r = await redactSecrets(`const token = "${secret}";\nexport default token;\n`);
    expect(r.text).toBe(`const token = "[REDACTED ${kind}]";\nexport default token;\n`);
    expect(r.kinds).toEqual([kind]);
    expect(r.count).toBe(1);
  });

  it.each([
    'const AKIA = "short";',
    'function skipTask(sk) { return sk - 1; }',
    'const key = process.env.API_KEY;',
    'ghp is not a token; neither is xoxb alone',
  ])('leaves ordinary code alone: %s', async (code) => {
    expect(await redactSecrets(code)).toEqual({ text: code, kinds: [], count: 0 });
  });
});

describe('our own rules skip a text without their hint', () => {
  // A rule runs only on a text its hint is found in: sound only if every match holds the hint.
  const samples = [...Object.values(FILES_WITH_SECRETS), ...Object.values(CREDENTIAL_FILES)];
  const everyMatchHoldsItsHint = (text: string) => {
    for (const rule of OWN_SECRET_RULES) {
      for (const match of text.matchAll(rule.pattern)) expect([rule.kind, rule.hint.test(match[0])]).toEqual([rule.kind, true]);
    }
  };
  it('in the secret fixtures, every rule that matches matches where its hint is', () => {
    const matched = new Set<string>();
    for (const text of samples) {
      everyMatchHoldsItsHint(text);
      for (const rule of OWN_SECRET_RULES) if ([...text.matchAll(rule.pattern)].length > 0) matched.add(rule.kind);
    }
    expect([...matched].sort()).toEqual(['github-token', 'jwt', 'kubeconfig-credential', 'password-assignment', 'stripe-key', 'url-password']);
  });
  it('in texts spliced from the fixtures, key words and separators (property)', () => {
    const piece = fc.oneof(
      fc.constantFrom(...samples.flatMap((t) => t.split(/(?<=[\s:=@/'"])/))),
      fc.constantFrom('password', 'Secret', 'API_KEY', 'token', '://', ':', '@', '=', ' = ', '"', "'", '\n', 'sk-', 'ghp_', 'eyJ', '_live_'),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(fc.property(fc.array(piece, { maxLength: 40 }), (parts) => everyMatchHoldsItsHint(parts.join(''))), { numRuns: 400 });
  });
});

describe('secretlint over many files', () => {
  it('keeps no profiler marks, so scanning stays linear in the files (its profiler scans every kept mark per new one)', async () => {
    for (let i = 0; i < 40; i++) {
      await redactSecrets(`const answer${i} = ${i};\nexport function f${i}() { return "plain text"; }\n`);
      // the profiler's observer runs on a later turn of the event loop
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(secretLintProfiler.entries).toEqual([]);
    expect(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('secretlint') || m.name.startsWith('@'))).toEqual([]);
  });
});

describe('collect redacts credentials in ordinary files', () => {
  let repo: Fixture;
  beforeAll(() => {
    repo = makeFixtureRepo([{ date: '2026-01-01T00:00:00Z', files: { 'src/config.ts': `export const GITHUB = '${FAKE.github}';\nexport const region = 'eu';\n`, 'src/plain.ts': 'export const x = 1;\n' } }]);
  });
  afterAll(() => repo.cleanup());

  it('keeps the file, replaces the token, changes its cache hash and warns', async () => {
    const result = await createCollectStage()({ root: repo.root }, testContext());
    const file = result.files.find((f) => f.path === 'src/config.ts')!;
    expect(file.content).not.toContain(FAKE.github);
    expect(file.content).toContain('[REDACTED github-token]');
    expect(file.content).toContain("export const region = 'eu';");
    expect(result.warnings.join('\n')).toMatch(/credentials redacted in 1 file: src\/config\.ts \(github-token\); set collect\.include_secrets: true/);

    const raw = await createCollectStage()({ root: repo.root }, testContext({ config: ConfigSchema.parse({ collect: { include_secrets: true } }) }));
    const rawFile = raw.files.find((f) => f.path === 'src/config.ts')!;
    expect(rawFile.content).toContain(FAKE.github);
    expect(rawFile.hash).not.toBe(file.hash);
    expect(raw.warnings.join('\n')).not.toMatch(/redacted/);
  });
});
