import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../helpers/fixture-repo.js';
import { callTool } from '../../src/mcp/server.js';
import { sharedContextTool } from '../../src/mcp/tools/shared-context.js';
import { openRepoProvider } from '../../src/provider/repo-provider.js';
import { silentReporter } from '../../src/util/reporter.js';

describe('MCP tool shared_context', () => {
  it('creates, injects, queries, lists and destroys through the root embedded store; bad input is a tool error', async () => {
    const { root } = makeTempDir('aiwg-mcp-shared-');
    const provider = await openRepoProvider({ root });
    const ctx = { root: provider.root, provider, env: {}, reporter: silentReporter() };
    const call = (args: Record<string, unknown>) => callTool(sharedContextTool, args, ctx);
    try {
      expect((await call({ action: 'create', mission: 'm1' })).isError).toBeFalsy();
      const injected = await call({ action: 'inject', mission: 'm1', key: 'finding/retry', content: 'the client retries without backoff' });
      expect(injected.structuredContent).toMatchObject({ action: 'inject', mission: 'm1', sequence: 1 });
      const hits = await call({ action: 'query', mission: 'm1', text: 'retry backoff' });
      expect(hits.content[0]).toMatchObject({ type: 'text', text: '#1 finding/retry: the client retries without backoff' });
      const missing = await call({ action: 'inject', mission: 'm1', key: 'k' });
      expect(missing.isError).toBe(true);
      expect(missing.content[0]).toMatchObject({ text: expect.stringContaining('inject needs "key" and "content"') });
      expect((await call({ action: 'destroy', mission: 'm1' })).isError).toBeFalsy();
      const gone = await call({ action: 'list', mission: 'm1' });
      expect(gone.isError).toBe(true);
      expect(gone.content[0]).toMatchObject({ text: expect.stringContaining('shared context "m1" does not exist') });
    } finally {
      await provider.close();
    }
  });
});
