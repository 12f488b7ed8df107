import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPathExclusion, pathExclusion } from '../../src/collect/exclusion-rules.js';

describe('createPathExclusion', () => {
  it('gives the verdict of pathExclusion for every path, a name seen before in another place included', () => {
    const segment = fc.constantFrom('src', 'lib', '.aws', '.docker', '.kube', '.config', 'gcloud', 'fixtures', 'a b', 'caf\u00e9');
    const name = fc.constantFrom(
      'index.ts', 'credentials', 'config', 'config.json', 'credentials.db', '.env', '.env.example', 'id_rsa', 'id_rsa.pub', 'key.pem', 'key.pem.example',
      'package-lock.json', 'app.min.js', 'logo.PNG', 'README.md', '.npmrc', 'Makefile', 'x.map',
    );
    const path = fc.tuple(fc.array(segment, { maxLength: 3 }), name).map(([dirs, base]) => [...dirs, base].join('/'));
    fc.assert(
      fc.property(fc.array(path, { minLength: 1, maxLength: 60 }), fc.boolean(), (paths, includeSecrets) => {
        const options = { includeSecrets };
        const judge = createPathExclusion(options);
        for (const p of paths) expect(judge(p)).toBe(pathExclusion(p, options));
      }),
      { numRuns: 300 },
    );
  });

  it('judges a credential place by its whole path, not by a name seen elsewhere first', () => {
    const judge = createPathExclusion({ includeSecrets: false });
    expect(judge('docs/credentials')).toBeUndefined();
    expect(judge('home/.aws/credentials')).toMatch(/^secret: credentials file \(\.aws\/credentials\)/);
    expect(judge('src/config.json')).toBeUndefined();
    expect(judge('.docker/config.json')).toMatch(/^secret/);
  });
});
